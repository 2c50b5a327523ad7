"""Weaken: a candidate that makes a test pass by testing less is refused; a real fix is not.

Each corpus case pairs a weakening of a test function with a legitimate fix of the same function:
the weakening must be refused with a reason naming what it did, the fix accepted, with a notice
exactly when it changes what a check expects.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from textwrap import dedent

import pytest

from pytest_caretaker.guard.weakening import Review, review
from pytest_caretaker.project.files import TestFiles
from pytest_caretaker.results import Edit, EditKind

TEST_FILE = "tests/test_x.py"
CONFTEST = "tests/conftest.py"
CODE_FILE = "src/app/module.py"
TESTS = TestFiles(frozenset({TEST_FILE}), patterns=())  # no globs: only what is named is a test


def src(text: str) -> str:
    return dedent(text).lstrip("\n")


def def_name(source: str) -> str:
    tree = ast.parse(source)
    return next(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def make_edit(
    source: str, path: str = TEST_FILE, kind: EditKind = "replace", qualname: str | None = None
) -> Edit:
    if qualname is None:
        qualname = "" if kind == "import" else def_name(source)
    return Edit(kind, path, qualname, source)


def review_one(edit: Edit, before: str | None, tests: TestFiles = TESTS) -> Review:
    return review([edit], tests, lambda _edit: before)


@dataclass(frozen=True)
class Case:
    id: str
    before: str | None  # the test function the edit replaces; None for an import
    weakened: str  # a replacement that tests less
    reason: str  # expected in the refusal
    fix: str  # a legitimate replacement
    notice: str | None  # expected in the fix's only notice; None when the fix brings none
    path: str = TEST_FILE
    kind: EditKind = "replace"
    qualname: str | None = None
    fix_before: str | None = None  # what the fix replaces, when not `before`

    def edit(self, source: str, path: str | None = None) -> Edit:
        return make_edit(source, path or self.path, self.kind, self.qualname)


CASES = [
    Case(
        "removed-assert",
        src("""
            def test_cart():
                cart = Cart()
                cart.add(3)
                assert cart.total() == 3
                assert cart.count() == 1
            """),
        src("""
            def test_cart():
                cart = Cart()
                cart.add(3)
                assert cart.total() == 3
            """),
        "removes the check `cart.count() == 1`",
        src("""
            def test_cart():
                cart = Cart()
                cart.add(3)
                assert cart.total() == 300
                assert cart.count() == 1
            """),
        "`cart.total() == 3` → `cart.total() == 300`",
    ),
    Case(
        "eq-loosened-to-ge",
        src("""
            def test_load_items():
                items = load_items("fixtures/three.json")
                assert len(items) == 3
            """),
        src("""
            def test_load_items():
                items = load_items("fixtures/three.json")
                assert len(items) >= 3
            """),
        "weakens `len(items) == 3` to `len(items) >= 3`",
        src("""
            def test_load_items():
                items = load_items("tests/fixtures/three.json")
                assert len(items) == 3
            """),
        None,
    ),
    Case(
        "eq-loosened-to-in",
        src("""
            def test_color():
                assert pick_color("warm") == "red"
            """),
        src("""
            def test_color():
                assert pick_color("warm") in ("red", "orange")
            """),
        "weakens `pick_color('warm') == 'red'`",
        src("""
            def test_color():
                assert pick_color("warm") == "orange"
            """),
        "`pick_color('warm') == 'orange'`",
    ),
    Case(
        "or-added",
        src("""
            def test_status():
                job = run_job("build")
                assert job.status == "ok"
            """),
        src("""
            def test_status():
                job = run_job("build")
                assert job.status == "ok" or job.status == "pending"
            """),
        "which accepts more outcomes",
        src("""
            def test_status():
                job = run_job("build")
                assert job.status == "done"
            """),
        "`job.status == 'ok'` → `job.status == 'done'`",
    ),
    Case(
        "and-condition-dropped",
        src("""
            def test_bounds():
                low, high = bounds([4, 1, 9])
                assert low == 1 and high == 9
            """),
        src("""
            def test_bounds():
                low, high = bounds([4, 1, 9])
                assert low == 1
            """),
        "drops a condition: `low == 1 and high == 9` becomes `low == 1`",
        src("""
            def test_bounds():
                low, high = bounds([4, 1, 9])
                assert low == 1 and high == 9
                assert low < high
            """),
        None,
    ),
    Case(
        "comparison-to-truthiness",
        src("""
            def test_parse_list():
                result = parse_list("1,2")
                assert result == [1, 2]
            """),
        src("""
            def test_parse_list():
                result = parse_list("1,2")
                assert result
            """),
        "replaces the comparison `result == [1, 2]` with the weaker `result`",
        src("""
            def test_parse_list():
                result = parse_list("1,2")
                assert result == ["1", "2"]
            """),
        "`result == ['1', '2']`",
    ),
    Case(
        "comparison-to-is-not-none",
        src("""
            def test_user_name():
                user = make_user("ann")
                assert user.name == "ann"
            """),
        src("""
            def test_user_name():
                user = make_user("ann")
                assert user.name is not None
            """),
        "weakens `user.name == 'ann'` to `user.name is not None`",
        src("""
            def test_user_name():
                user = make_user("ann")
                assert user.name == "Ann"
            """),
        "`user.name == 'Ann'`",
    ),
    Case(
        "assert-true",
        src("""
            def test_parse_int():
                assert parse_int("1") == 1
            """),
        src("""
            def test_parse_int():
                assert True
            """),
        "into `True`, which cannot fail",
        src("""
            def test_parse_int():
                assert parse_int("1") == 1
                assert parse_int("-1") == -1
            """),
        None,
    ),
    Case(
        "assert-or-true",
        src("""
            def test_checksum():
                assert checksum(b"abc") == 0x24
            """),
        src("""
            def test_checksum():
                assert checksum(b"abc") == 0x24 or True
            """),
        "which cannot fail",
        src("""
            def test_checksum():
                assert checksum(b"abc") == 0x26
            """),
        "`checksum(b'abc') == 38`",
    ),
    Case(
        "assert-tuple",
        src("""
            def test_slug():
                assert slugify("Hello World") == "hello-world"
            """),
        src("""
            def test_slug():
                assert (slugify("Hello World") == "hello-world", "slug")
            """),
        "which cannot fail",
        src("""
            def test_slug():
                assert slugify("Hello World") == "hello_world"
            """),
        "`slugify('Hello World') == 'hello_world'`",
    ),
    Case(
        "assert-self-comparison",
        src("""
            def test_render():
                assert render("x") == "<p>x</p>"
            """),
        src("""
            def test_render():
                assert render("x") == render("x")
            """),
        "which cannot fail",
        src("""
            def test_render():
                assert render("x") == "<p>x</p>\\n"
            """),
        "`render('x') == '<p>x</p>\\n'`",
    ),
    Case(
        "assert-under-if",
        src("""
            def test_lookup():
                record = lookup(42)
                assert record.id == 42
            """),
        src("""
            def test_lookup():
                record = lookup(42)
                if record is not None:
                    assert record.id == 42
            """),
        "makes the check `record.id == 42` of tests/test_x.py::test_lookup conditional",
        src("""
            def test_lookup():
                record = lookup(42)
                if record is None:
                    pytest.fail("no record 42")
                assert record.id == 42
            """),
        None,
    ),
    Case(
        "assert-in-nested-function",
        src("""
            def test_queue():
                queue = Queue()
                queue.push(1)
                assert queue.pop() == 1
            """),
        src("""
            def test_queue():
                queue = Queue()
                queue.push(1)

                def check():
                    assert queue.pop() == 1
            """),
        "conditional, so it may never run",
        src("""
            def test_queue():
                queue = Queue(maxsize=1)
                queue.push(1)
                assert queue.pop() == 1
            """),
        None,
    ),
    Case(
        "pytest-skip-call",
        src("""
            def test_connect():
                conn = connect("localhost")
                assert conn.ping()
            """),
        src("""
            def test_connect():
                pytest.skip("server is flaky")
                conn = connect("localhost")
                assert conn.ping()
            """),
        "adds skip to tests/test_x.py::test_connect, which skips or xfails it",
        src("""
            def test_connect():
                conn = connect("127.0.0.1")
                assert conn.ping()
            """),
        None,
    ),
    Case(
        "pytest-xfail-call",
        src("""
            def test_invoice():
                assert invoice(2).lines == 2
            """),
        src("""
            def test_invoice():
                pytest.xfail("rounding")
                assert invoice(2).lines == 2
            """),
        "adds xfail",
        src("""
            def test_invoice():
                assert invoice(2).lines == 3
            """),
        "`invoice(2).lines == 3`",
    ),
    Case(
        "mark-skip",
        src("""
            def test_export():
                assert export([1]) == "1"
            """),
        src("""
            @pytest.mark.skip(reason="broken")
            def test_export():
                assert export([1]) == "1"
            """),
        "adds skip",
        src("""
            def test_export():
                assert export([1]) == "[1]"
            """),
        "`export([1]) == '[1]'`",
    ),
    Case(
        "mark-skipif",
        src("""
            def test_home():
                assert home_dir().name == "user"
            """),
        src("""
            @pytest.mark.skipif(sys.platform == "darwin", reason="mac")
            def test_home():
                assert home_dir().name == "user"
            """),
        "adds skipif",
        src("""
            def test_home():
                assert home_dir(user="user").name == "user"
            """),
        "`home_dir(user='user').name == 'user'`",
    ),
    Case(
        "mark-xfail",
        src("""
            def test_merge():
                assert merge({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
            """),
        src("""
            @pytest.mark.xfail(reason="known bug")
            def test_merge():
                assert merge({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
            """),
        "adds xfail",
        src("""
            def test_merge():
                assert merge({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
                assert merge({}, {}) == {}
            """),
        None,
    ),
    Case(
        "importorskip",
        src("""
            def test_frame():
                import pandas as pd

                frame = pd.DataFrame({"a": [1]})
                assert summarize(frame) == {"a": 1}
            """),
        src("""
            def test_frame():
                pd = pytest.importorskip("pandas")
                frame = pd.DataFrame({"a": [1]})
                assert summarize(frame) == {"a": 1}
            """),
        "adds importorskip",
        src("""
            def test_frame():
                import pandas as pd

                frame = pd.DataFrame({"a": [1]})
                assert summarize(frame, column="a") == {"a": 1}
            """),
        "`summarize(frame, column='a') == {'a': 1}`",
    ),
    Case(
        "param-marks-xfail",
        src("""
            @pytest.mark.parametrize(("a", "b", "total"), [(1, 2, 3), (2, 2, 4)])
            def test_add(a, b, total):
                assert add(a, b) == total
            """),
        src("""
            @pytest.mark.parametrize(
                ("a", "b", "total"), [(1, 2, 3), pytest.param(2, 2, 4, marks=pytest.mark.xfail)]
            )
            def test_add(a, b, total):
                assert add(a, b) == total
            """),
        "adds xfail",
        src("""
            @pytest.mark.parametrize(("a", "b", "total"), [(1, 2, 3), (2, 3, 5)])
            def test_add(a, b, total):
                assert add(a, b) == total
            """),
        "changes a case of tests/test_x.py::test_add: (2, 2, 4) → (2, 3, 5)",
    ),
    Case(
        "try-except",
        src("""
            def test_divide():
                assert divide(6, 3) == 2
            """),
        src("""
            def test_divide():
                try:
                    assert divide(6, 3) == 2
                except ZeroDivisionError:
                    pass
            """),
        "wraps code of tests/test_x.py::test_divide in try/except",
        src("""
            def test_divide():
                assert divide(6, 2) == 3
            """),
        "`divide(6, 3) == 2` → `divide(6, 2) == 3`",
    ),
    Case(
        "contextlib-suppress",
        src("""
            def test_save(tmp_path):
                save(tmp_path / "out.txt", "data")
                assert (tmp_path / "out.txt").read_text() == "data"
            """),
        src("""
            def test_save(tmp_path):
                with contextlib.suppress(OSError):
                    save(tmp_path / "out.txt", "data")
                assert (tmp_path / "out.txt").read_text() == "data"
            """),
        "adds suppress",
        src("""
            def test_save(tmp_path):
                save(tmp_path / "out.txt", text="data")
                assert (tmp_path / "out.txt").read_text() == "data"
            """),
        None,
    ),
    Case(
        "new-pytest-raises",
        src("""
            def test_average():
                assert average([]) == 0
            """),
        src("""
            def test_average():
                with pytest.raises(ZeroDivisionError):
                    average([])
            """),
        "adds raises to tests/test_x.py::test_average, which expects an exception",
        src("""
            def test_average():
                assert average([]) == 0
                assert average([2, 4]) == 3
            """),
        None,
    ),
    Case(
        "renamed",
        src("""
            def test_round_trip():
                assert decode(encode("x")) == "x"
            """),
        src("""
            def _test_round_trip():
                assert decode(encode("x")) == "x"
            """),
        "renames test_round_trip to _test_round_trip",
        src("""
            def test_round_trip():
                assert decode(encode("x", "utf-8")) == "x"
            """),
        "`decode(encode('x', 'utf-8')) == 'x'`",
    ),
    Case(
        "body-deleted",
        src("""
            def test_sort():
                assert sort_desc([1, 3, 2]) == [3, 2, 1]
            """),
        src("""
            def test_sort():
                pass
            """),
        "deletes the body of tests/test_x.py::test_sort",
        src('''
            def test_sort():
                """Sorting is descending."""
                assert sort_desc([1, 3, 2]) == [3, 2, 1]
            '''),
        None,
    ),
    Case(
        "early-return",
        src("""
            def test_cache():
                cache = Cache(size=2)
                cache.put("a", 1)
                assert cache.get("a") == 1
            """),
        src("""
            def test_cache():
                cache = Cache(size=2)
                return
                cache.put("a", 1)
                assert cache.get("a") == 1
            """),
        "makes tests/test_x.py::test_cache return early",
        src("""
            def test_cache():
                cache = Cache(size=2, ttl=None)
                cache.put("a", 1)
                assert cache.get("a") == 1
            """),
        None,
    ),
    Case(
        "conditional-early-return",
        src("""
            def test_feed():
                feed = fetch_feed()
                assert feed.entries == 10
            """),
        src("""
            def test_feed():
                feed = fetch_feed()
                if not feed.entries:
                    return
                assert feed.entries == 10
            """),
        "return early",
        src("""
            def test_feed():
                feed = fetch_feed(limit=10)
                assert feed.entries == 10
            """),
        None,
    ),
    Case(
        "approx-added",
        src("""
            def test_area():
                assert circle_area(1.0) == 3.14159
            """),
        src("""
            def test_area():
                assert circle_area(1.0) == pytest.approx(3.14159)
            """),
        "adds approx to tests/test_x.py::test_area, which compares approximately",
        src("""
            def test_area():
                assert circle_area(1.0) == math.pi
            """),
        "`circle_area(1.0) == 3.14159` → `circle_area(1.0) == math.pi`",
    ),
    Case(
        "approx-rel-widened",
        src("""
            def test_mean():
                assert mean([0.1, 0.2]) == pytest.approx(0.15, rel=1e-6)
            """),
        src("""
            def test_mean():
                assert mean([0.1, 0.2]) == pytest.approx(0.15, rel=1e-2)
            """),
        "widens rel= from 1e-06 to 0.01",
        src("""
            def test_mean():
                assert mean([0.1, 0.2]) == pytest.approx(0.15, rel=1e-9)
            """),
        "`mean([0.1, 0.2]) == pytest.approx(0.15, rel=1e-09)`",
    ),
    Case(
        "approx-abs-added",
        src("""
            def test_balance():
                assert balance(["+0.1", "+0.2"]) == pytest.approx(0.3)
            """),
        src("""
            def test_balance():
                assert balance(["+0.1", "+0.2"]) == pytest.approx(0.3, abs=0.05)
            """),
        "adds abs= to pytest.approx(0.3, abs=0.05)",
        src("""
            def test_balance():
                assert balance(["+0.1", "+0.2", "-0.1"]) == pytest.approx(0.2)
            """),
        "`balance(['+0.1', '+0.2', '-0.1']) == pytest.approx(0.2)`",
    ),
    Case(
        "approx-tolerance-changed-to-expression",
        src("""
            def test_speed():
                assert speed(10, 2) == pytest.approx(5.0, abs=1e-3)
            """),
        src("""
            def test_speed():
                assert speed(10, 2) == pytest.approx(5.0, abs=TOLERANCE)
            """),
        "changes the tolerance abs=",
        src("""
            def test_speed():
                assert speed(10, 2) == pytest.approx(5.0, abs=1e-6)
            """),
        "`speed(10, 2) == pytest.approx(5.0, abs=1e-06)`",
    ),
    Case(
        "isclose-rel-tol-widened",
        src("""
            def test_sqrt():
                assert math.isclose(newton_sqrt(2.0), 1.41421356, rel_tol=1e-8)
            """),
        src("""
            def test_sqrt():
                assert math.isclose(newton_sqrt(2.0), 1.41421356, rel_tol=1e-3)
            """),
        "widens rel_tol= from 1e-08 to 0.001",
        src("""
            def test_sqrt():
                assert math.isclose(newton_sqrt(2.0), 1.41421356, rel_tol=1e-9)
            """),
        "rel_tol=1e-09)`",
    ),
    Case(
        "assert-almost-equal-places-widened",
        src("""
            def test_third(self):
                self.assertAlmostEqual(third(1), 0.333, places=3)
            """),
        src("""
            def test_third(self):
                self.assertAlmostEqual(third(1), 0.333, places=1)
            """),
        "widens places= from 3 to 1",
        src("""
            def test_third(self):
                self.assertAlmostEqual(third(1), 0.3333, places=4)
            """),
        "`self.assertAlmostEqual(third(1), 0.3333, places=4)`",
        qualname="TestThird.test_third",
    ),
    Case(
        "parametrize-case-dropped",
        src("""
            @pytest.mark.parametrize("word", ["level", "noon", "abba"])
            def test_palindrome(word):
                assert is_palindrome(word)
            """),
        src("""
            @pytest.mark.parametrize("word", ["level", "noon"])
            def test_palindrome(word):
                assert is_palindrome(word)
            """),
        "drops 1 parametrized case of tests/test_x.py::test_palindrome",
        src("""
            @pytest.mark.parametrize("word", ["level", "noon", "abba", "a"])
            def test_palindrome(word):
                assert is_palindrome(word)
            """),
        None,
    ),
    Case(
        "parametrize-argvalues-keyword-cases-dropped",
        src("""
            @pytest.mark.parametrize(argnames="n", argvalues=[1, 2, 3])
            def test_positive(n):
                assert is_positive(n)
            """),
        src("""
            @pytest.mark.parametrize(argnames="n", argvalues=[1])
            def test_positive(n):
                assert is_positive(n)
            """),
        "drops 2 parametrized cases",
        src("""
            @pytest.mark.parametrize(argnames="n", argvalues=[1, 2, 4])
            def test_positive(n):
                assert is_positive(n)
            """),
        "changes a case of tests/test_x.py::test_positive: 3 → 4",
    ),
    Case(
        "parametrize-cases-replaced-by-expression",
        src("""
            @pytest.mark.parametrize("n", [1, 2, 3])
            def test_odd_or_even(n):
                assert parity(n) in ("odd", "even")
            """),
        src("""
            @pytest.mark.parametrize("n", CASES[:1])
            def test_odd_or_even(n):
                assert parity(n) in ("odd", "even")
            """),
        "replaces the parametrized cases of tests/test_x.py::test_odd_or_even with an expression",
        src("""
            @pytest.mark.parametrize("n", [1, 2, 3])
            def test_odd_or_even(n):
                assert parity(n) in ("odd", "even")
                assert parity(n + 1) != parity(n)
            """),
        None,
    ),
    Case(
        "parametrize-removed",
        src("""
            @pytest.mark.parametrize("n", [1, 2, 3])
            def test_square(n):
                assert square(n) == n * n
            """),
        src("""
            def test_square():
                n = 2
                assert square(n) == n * n
            """),
        "removes a parametrize decorator from tests/test_x.py::test_square",
        src("""
            @pytest.mark.parametrize("n", [1, 2, 3, -3])
            def test_square(n):
                assert square(n) == n * n
            """),
        None,
    ),
    Case(
        "monkeypatch-setattr",
        src("""
            def test_price(monkeypatch):
                monkeypatch.setenv("CURRENCY", "EUR")
                assert shop.price_label(3) == "3 EUR"
            """),
        src("""
            def test_price(monkeypatch):
                monkeypatch.setenv("CURRENCY", "EUR")
                monkeypatch.setattr(shop, "price_label", lambda amount: "3 EUR")
                assert shop.price_label(3) == "3 EUR"
            """),
        "adds setattr to tests/test_x.py::test_price, which replaces code with a stand-in",
        src("""
            def test_price(monkeypatch):
                monkeypatch.setenv("CURRENCY", "USD")
                assert shop.price_label(3) == "3 USD"
            """),
        "`shop.price_label(3) == '3 EUR'` → `shop.price_label(3) == '3 USD'`",
    ),
    Case(
        "mock-patch",
        src("""
            def test_report():
                assert build_report(date(2024, 1, 1)).title == "Report 2024-01-01"
            """),
        src("""
            def test_report():
                with mock.patch("app.report.render", return_value="Report 2024-01-01"):
                    assert build_report(date(2024, 1, 1)).title == "Report 2024-01-01"
            """),
        "adds patch",
        src("""
            def test_report():
                report = build_report(date(2024, 1, 1))
                assert build_report(date(2024, 1, 1)).title == "Report 2024-01-01"
                assert report.pages == 1
            """),
        None,
    ),
    Case(
        "mock-patch-decorator",
        src("""
            def test_now():
                assert clock.now().year == 2024
            """),
        src("""
            @patch("app.clock.now")
            def test_now(now):
                now.return_value.year = 2024
                assert clock.now().year == 2024
            """),
        "adds patch",
        src("""
            def test_now():
                assert clock.now(tz=UTC).year == 2024
            """),
        "`clock.now().year == 2024` → `clock.now(tz=UTC).year == 2024`",
    ),
    Case(
        "conftest-collection-hook",
        src("""
            def pytest_collection_modifyitems(config, items):
                items.sort(key=lambda item: item.name)
            """),
        src("""
            def pytest_collection_modifyitems(config, items):
                items[:] = [item for item in items if "slow" not in item.keywords]
            """),
        "edits the pytest hook pytest_collection_modifyitems in tests/conftest.py",
        src("""
            @pytest.fixture
            def db():
                return Database(":memory:")
            """),
        "returns: `Database(':memory')` → `Database(':memory:')`",
        path=CONFTEST,
        fix_before=src("""
            @pytest.fixture
            def db():
                return Database(":memory")
            """),
    ),
    Case(
        "conftest-any-hook",
        src("""
            def pytest_runtest_setup(item):
                item.config.cache.set("last", item.name)
            """),
        src("""
            def pytest_runtest_setup(item):
                if "network" in item.keywords:
                    pytest.skip("offline")
            """),
        "edits the pytest hook pytest_runtest_setup",
        src("""
            @pytest.fixture
            def user():
                return User(name="ann", admin=False)
            """),
        "returns: `User(name='ann')` → `User(name='ann', admin=False)`",
        path=CONFTEST,
        fix_before=src("""
            @pytest.fixture
            def user():
                return User(name="ann")
            """),
    ),
    Case(
        "conftest-fixture-skips",
        src("""
            @pytest.fixture
            def server():
                return start_server(port=8080)
            """),
        src("""
            @pytest.fixture
            def server():
                pytest.skip("no server")
            """),
        "adds skip to tests/conftest.py::server",
        src("""
            @pytest.fixture
            def server():
                return start_server(port=0)
            """),
        "returns: `start_server(port=8080)` → `start_server(port=0)`",
        path=CONFTEST,
    ),
    Case(
        "generate-tests-hook-in-test-module",
        src("""
            def test_ok():
                assert ok()
            """),
        src("""
            def pytest_generate_tests(metafunc):
                metafunc.parametrize("n", [])
            """),
        "edits the pytest hook pytest_generate_tests in tests/test_x.py",
        src("""
            def test_ok():
                assert ok(strict=True)
            """),
        "`ok()` → `ok(strict=True)`",
        qualname="test_ok",
    ),
    Case(
        "conftest-hook-import",
        None,
        "from tests.plugin import pytest_collection_modifyitems\n",
        "imports pytest hooks into tests/conftest.py",
        "from app.db import Database\n",
        None,
        path=CONFTEST,
        kind="import",
    ),
    Case(
        "conftest-star-import",
        None,
        "from tests.plugin import *\n",
        "imports pytest hooks into tests/conftest.py",
        "from tests.plugin import make_user\n",
        None,
        path=CONFTEST,
        kind="import",
    ),
    Case(
        "unittest-assert-equal-to-assert-true",
        src("""
            def test_add(self):
                self.assertEqual(self.calc.add(1, 2), 3)
            """),
        src("""
            def test_add(self):
                self.assertTrue(True)
            """),
        "turns the check `self.assertEqual(self.calc.add(1, 2), 3)` into `self.assertTrue(True)`",
        src("""
            def test_add(self):
                self.assertEqual(self.calc.add(2, 2), 4)
            """),
        "`self.assertEqual(self.calc.add(2, 2), 4)`",
        qualname="TestCalc.test_add",
    ),
    Case(
        "unittest-assert-equal-to-assert-in",
        src("""
            def test_tags(self):
                self.assertEqual(tags("a"), ["a"])
            """),
        src("""
            def test_tags(self):
                self.assertIn("a", tags("a"))
            """),
        "replaces `self.assertEqual(tags('a'), ['a'])` with the weaker",
        src("""
            def test_tags(self):
                self.assertEqual(tags("a"), ["a"])
                self.assertEqual(tags(""), [])
            """),
        None,
        qualname="TestTags.test_tags",
    ),
    Case(
        "unittest-skip-test",
        src("""
            def test_upload(self):
                self.assertEqual(upload(b"x").size, 1)
            """),
        src("""
            def test_upload(self):
                self.skipTest("needs network")
                self.assertEqual(upload(b"x").size, 1)
            """),
        "adds skipTest",
        src("""
            def test_upload(self):
                self.assertEqual(upload(b"xy").size, 2)
            """),
        "`self.assertEqual(upload(b'xy').size, 2)`",
        qualname="TestUpload.test_upload",
    ),
]


def case_id(case: Case) -> str:
    return case.id


def test_the_corpus_is_large_and_ids_are_unique() -> None:
    assert len(CASES) >= 20
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_weakening_is_refused(case: Case) -> None:
    result = review_one(case.edit(case.weakened), case.before)

    assert result.refused is not None
    assert case.reason in result.refused
    assert case.path in result.refused


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_legitimate_fix_is_accepted(case: Case) -> None:
    before = case.fix_before if case.fix_before is not None else case.before
    result = review_one(case.edit(case.fix), before)

    assert result.refused is None
    if case.notice is None:
        assert result.notices == ()
    else:
        assert len(result.notices) == 1
        assert case.notice in result.notices[0]


UNCHANGEABLE = {"conftest-collection-hook", "conftest-any-hook"}  # any edit of a hook is refused


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.kind == "replace" and c.id not in UNCHANGEABLE], ids=case_id
)
def test_unchanged_test_passes_without_notice(case: Case) -> None:
    assert case.before is not None
    assert review_one(case.edit(case.before), case.before) == Review(None, ())


#: Weakened tests that use a stand-in (mock, pytest.approx): in code under test that is refused
#: for what it is (test_forgery.py), not as a weakening.
STAND_INS = {"approx-added", "mock-patch"}


@pytest.mark.parametrize("case", [c for c in CASES if c.id not in STAND_INS], ids=case_id)
def test_edits_to_code_under_test_are_never_reviewed(case: Case) -> None:
    result = review_one(case.edit(case.weakened, path=CODE_FILE), case.before)

    assert result == Review(None, ())


@pytest.mark.parametrize("case", [c for c in CASES if c.id in STAND_INS], ids=case_id)
def test_a_stand_in_in_code_under_test_is_refused_as_one(case: Case) -> None:
    result = review_one(case.edit(case.weakened, path=CODE_FILE), case.before)

    assert result.refused is not None
    assert result.refused.endswith("; code under test must compute the value a test checks")


# -- beyond the corpus -----------------------------------------------------------------------

REQUIRE_DB = src("""
    def _require_db():
        if not database_available():
            pytest.skip("no database")
    """)


def test_helper_added_to_a_test_file_that_skips_is_refused() -> None:
    calls: list[Edit] = []

    def original(edit: Edit) -> str | None:
        calls.append(edit)
        return None

    edit = Edit("helper", TEST_FILE, "_require_db", REQUIRE_DB)
    result = review([edit], TESTS, original)

    assert result.refused is not None
    assert "adds skip to tests/test_x.py::_require_db" in result.refused
    assert calls == []  # a helper replaces nothing


def test_helper_added_to_code_under_test_is_not_reviewed() -> None:
    edit = Edit("helper", CODE_FILE, "_require_db", REQUIRE_DB)
    assert review([edit], TESTS, lambda _edit: None) == Review(None, ())


def test_helper_without_weakening_is_accepted() -> None:
    helper = src("""
        def _make_cart(*prices):
            cart = Cart()
            for price in prices:
                cart.add(price)
            return cart
        """)
    edit = Edit("helper", TEST_FILE, "_make_cart", helper)
    assert review([edit], TESTS, lambda _edit: None) == Review(None, ())


def test_a_replaced_test_without_original_is_still_checked_for_skips() -> None:
    skipped = src("""
        @pytest.mark.skip
        def test_new():
            assert compute() == 1
        """)
    result = review_one(make_edit(skipped), None)
    assert result.refused is not None
    assert "adds skip" in result.refused


def test_conftest_is_test_code_wherever_it_lives() -> None:
    hook = src("""
        def pytest_collection_modifyitems(items):
            items.clear()
        """)
    result = review_one(
        make_edit(hook, path="conftest.py"), hook, tests=TestFiles(frozenset(), patterns=())
    )
    assert result.refused is not None
    assert "edits the pytest hook pytest_collection_modifyitems in conftest.py" in result.refused


def test_a_conftest_hook_is_refused_even_unchanged() -> None:
    hook = src("""
        def pytest_configure(config):
            config.addinivalue_line("markers", "slow: slow tests")
        """)
    result = review_one(make_edit(hook, path=CONFTEST), hook)
    assert result.refused is not None
    assert "edits the pytest hook pytest_configure in tests/conftest.py" in result.refused


def test_plain_import_into_a_conftest_is_accepted() -> None:
    plain = make_edit("import os\n", path=CONFTEST, kind="import")
    assert review_one(plain, None) == Review(None, ())


LEGITIMATE = [
    pytest.param(
        src("""
            def test_sqrt_negative():
                with pytest.raises(ValueError):
                    sqrt(-1)
            """),
        src("""
            def test_sqrt_negative():
                with pytest.raises(ValueError, match="negative"):
                    sqrt(-1.0)
            """),
        None,
        id="existing-raises-gets-match",
    ),
    pytest.param(
        src("""
            def test_clock(monkeypatch):
                monkeypatch.setattr(time, "time", lambda: 0)
                assert stamp() == "1970-01-01"
            """),
        src("""
            def test_clock(monkeypatch):
                monkeypatch.setattr(time, "time", lambda: 0.0)
                assert stamp() == "1970-01-01"
            """),
        None,
        id="existing-setattr-value-fixed",
    ),
    pytest.param(
        src("""
            @pytest.mark.skipif(sys.platform == "win32", reason="posix paths")
            def test_join():
                assert join("a", "b") == "a/b"
            """),
        src("""
            @pytest.mark.skipif(sys.platform == "win32", reason="posix paths")
            def test_join():
                assert join("a", "b") == "a/b"
                assert join("a", "") == "a/"
            """),
        None,
        id="existing-skipif-kept",
    ),
    pytest.param(
        src("""
            def test_retry():
                try:
                    result = fetch(retries=0)
                except TimeoutError:
                    result = None
                assert result is None
            """),
        src("""
            def test_retry():
                try:
                    result = fetch(retries=1)
                except TimeoutError:
                    result = None
                assert result is None
            """),
        None,
        id="existing-try-kept",
    ),
    pytest.param(
        src("""
            def test_pair():
                assert first() == 1
                assert second() == 2
            """),
        src("""
            def test_pair():
                assert second() == 2
                assert first() == 1
            """),
        None,
        id="checks-reordered",
    ),
    pytest.param(
        src("""
            def test_ratio():
                assert ratio(1, 3) == pytest.approx(0.333, abs=1e-3)
            """),
        src("""
            def test_ratio():
                assert ratio(1, 3) == pytest.approx(0.3333, abs=1e-4)
            """),
        "`ratio(1, 3) == pytest.approx(0.3333, abs=0.0001)`",
        id="approx-abs-tightened",
    ),
    pytest.param(
        src("""
            @pytest.mark.parametrize("n", [1, 2])
            @pytest.mark.parametrize("sign", [1, -1])
            def test_abs(n, sign):
                assert absolute(n * sign) == n
            """),
        src("""
            @pytest.mark.parametrize("n", [1, 2, 3])
            @pytest.mark.parametrize("sign", [1, -1])
            def test_abs(n, sign):
                assert absolute(n * sign) == n
            """),
        None,
        id="stacked-parametrize-case-added",
    ),
    pytest.param(
        src("""
            async def test_fetch():
                assert await fetch("a") == b"a"
            """),
        src("""
            async def test_fetch():
                assert await fetch("a") == b"A"
            """),
        "`await fetch('a') == b'A'`",
        id="async-expected-value-changed",
    ),
]


@pytest.mark.parametrize(("before", "after", "notice"), LEGITIMATE)
def test_more_legitimate_fixes_are_accepted(before: str, after: str, notice: str | None) -> None:
    result = review_one(make_edit(after), before)

    assert result.refused is None
    if notice is None:
        assert result.notices == ()
    else:
        assert len(result.notices) == 1
        assert notice in result.notices[0]


# -- several edits ---------------------------------------------------------------------------

SUM_BEFORE = src("""
    def test_sum():
        assert total([1, 2]) == 3
    """)
SUM_FIXED = src("""
    def test_sum():
        assert total([1, 2]) == 4
    """)
MAX_BEFORE = src("""
    def test_max():
        assert largest([1, 2]) == 2
    """)
MAX_SKIPPED = src("""
    @pytest.mark.skip
    def test_max():
        assert largest([1, 2]) == 2
    """)
MAX_FIXED = src("""
    def test_max():
        assert largest([1, 2]) == 1
    """)
ORIGINALS = {"test_sum": SUM_BEFORE, "test_max": MAX_BEFORE}


def by_qualname(edit: Edit) -> str | None:
    return ORIGINALS.get(edit.qualname)


def test_notices_of_several_edits_are_collected_in_order() -> None:
    edits = [make_edit(SUM_FIXED), make_edit(MAX_FIXED)]
    result = review(edits, TESTS, by_qualname)

    assert result.refused is None
    assert len(result.notices) == 2
    assert "`total([1, 2]) == 3` → `total([1, 2]) == 4`" in result.notices[0]
    assert "`largest([1, 2]) == 2` → `largest([1, 2]) == 1`" in result.notices[1]


def test_one_weakening_refuses_the_whole_candidate() -> None:
    edits = [make_edit(SUM_FIXED), make_edit(MAX_SKIPPED)]
    result = review(edits, TESTS, by_qualname)

    assert result.refused is not None
    assert "adds skip to tests/test_x.py::test_max" in result.refused
    assert len(result.notices) == 1
    assert "test_sum" in result.notices[0]


def test_the_first_refusal_is_reported() -> None:
    deleted = src("""
        def test_sum():
            pass
        """)
    edits = [make_edit(deleted), make_edit(MAX_SKIPPED)]
    result = review(edits, TESTS, by_qualname)

    assert result.refused is not None
    assert "deletes the body of tests/test_x.py::test_sum" in result.refused


def test_code_edits_among_test_edits_are_skipped() -> None:
    code = Edit("replace", CODE_FILE, "largest", "def largest(xs):\n    pytest.skip()\n")
    edits = [code, make_edit(SUM_FIXED)]
    result = review(edits, TESTS, by_qualname)

    assert result.refused is None
    assert len(result.notices) == 1


# -- known gaps ------------------------------------------------------------------------------

MISSED = [
    pytest.param(
        src("""
            @pytest.mark.skipif(sys.platform == "win32", reason="posix")
            def test_link():
                assert link("a") == "a"
            """),
        src("""
            @pytest.mark.skipif(True, reason="posix")
            def test_link():
                assert link("a") == "a"
            """),
        id="skipif-condition-made-always-true",
    ),
    pytest.param(
        src("""
            def test_third():
                assert third(1) == pytest.approx(0.333)
            """),
        src("""
            def test_third():
                assert third(1) == pytest.approx(0.333, 0.5)
            """),
        id="approx-rel-added-positionally",
    ),
    pytest.param(
        src("""
            def test_third(self):
                self.assertAlmostEqual(third(1), 0.333, 3)
            """),
        src("""
            def test_third(self):
                self.assertAlmostEqual(third(1), 0.333, 1)
            """),
        id="assert-almost-equal-places-widened-positionally",
    ),
    pytest.param(
        src("""
            def test_mean():
                assert mean([0.1, 0.2]) == pytest.approx(0.15, rel=1e-9)
            """),
        src("""
            def test_mean():
                assert mean([0.1, 0.2]) == pytest.approx(0.15)
            """),
        id="tolerance-keyword-removed-falls-back-to-looser-default",
    ),
    pytest.param(
        src("""
            def test_add(self):
                self.assertEqual(add(1, 2), 3)
            """),
        src("""
            def test_add(self):
                self.assertEqual(add(1, 2), add(1, 2))
            """),
        id="assert-equal-of-a-value-with-itself",
    ),
    pytest.param(
        src("""
            def test_price():
                assert shop.price_label(3) == "3 EUR"
            """),
        src("""
            def test_price():
                shop.price_label = lambda amount: "3 EUR"
                assert shop.price_label(3) == "3 EUR"
            """),
        id="stand-in-by-attribute-assignment",
    ),
]


@pytest.mark.parametrize(("before", "weakened"), MISSED)
def test_formerly_missed_weakening_is_refused(before: str, weakened: str) -> None:
    result = review_one(make_edit(weakened), before)
    assert result.refused is not None


def test_hook_import_into_a_test_module_is_refused() -> None:
    edit = make_edit("from tests.plugin import pytest_generate_tests\n", kind="import")
    result = review_one(edit, None)
    assert result.refused is not None


FALSELY_REFUSED = [
    pytest.param(
        src("""
            def test_mean():
                assert mean([0.1, 0.2]) == pytest.approx(0.15)
            """),
        src("""
            def test_mean():
                assert mean([0.1, 0.2]) == pytest.approx(0.15, rel=1e-9)
            """),
        id="tolerance-added-tighter-than-the-default",
    ),
    pytest.param(
        src("""
            def test_total():
                assert total([Item(1), Item(2)]) == 3
            """),
        src("""
            def test_total():
                def item(price):
                    return Item(price=price)

                assert total([item(1), item(2)]) == 3
            """),
        id="nested-helper-with-return",
    ),
    pytest.param(
        src("""
            def test_rename(client):
                response = client.put("/items/1", json={"name": "x"})
                assert response.status_code == 200
            """),
        src("""
            def test_rename(client):
                response = client.patch("/items/1", json={"name": "x"})
                assert response.status_code == 200
            """),
        id="http-client-patch-method",
    ),
]


@pytest.mark.parametrize(("before", "fix"), FALSELY_REFUSED)
def test_formerly_refused_legitimate_fix_is_accepted(before: str, fix: str) -> None:
    result = review_one(make_edit(fix), before)
    assert result.refused is None


# -- what the guard used to miss (#15) ---------------------------------------------------------

MISSES = [
    (
        "fixture returns other input data",
        CONFTEST,
        "@pytest.fixture\ndef prices():\n    return [3, 1, 2]\n",
        "@pytest.fixture\ndef prices():\n    return [5, 5, 5]\n",
        "the fix changes the data the fixture tests/conftest.py::prices returns: `[3, 1, 2]` → "
        "`[5, 5, 5]`, which changes the input of every test that uses it; fix the code",
    ),
    (
        "fixture returns the buggy value",
        CONFTEST,
        "@pytest.fixture\ndef expected():\n    return 42\n",
        "@pytest.fixture\ndef expected():\n    return 41\n",
        "the fix changes the data the fixture tests/conftest.py::expected returns",
    ),
    (
        "fixture computes what it returned",
        CONFTEST,
        "@pytest.fixture\ndef expected():\n    return 42\n",
        "@pytest.fixture\ndef expected():\n    return price(17)\n",
        "makes tests/conftest.py::expected compute `price(17)` where it returned the data `42`, "
        "so the tests would check the code against itself",
    ),
    (
        "fixture yields a stand-in",
        CONFTEST,
        "@pytest.fixture\ndef pricer():\n    yield shop.price\n",
        "@pytest.fixture\ndef pricer():\n    yield lambda n: 42\n",
        "makes tests/conftest.py::pricer return the stand-in `lambda n: 42`",
    ),
    (
        "fixture returns a mock",
        CONFTEST,
        "@pytest.fixture\ndef pricer():\n    return shop.price\n",
        "@pytest.fixture\ndef pricer():\n    return MagicMock(return_value=42)\n",
        "the fix adds MagicMock to tests/conftest.py::pricer, which replaces code with a stand-in",
    ),
    (
        "parametrize helper drops cases",
        TEST_FILE,
        "def cases():\n    return [(1, 2), (2, 4), (3, 6)]\n",
        "def cases():\n    return [(1, 2)]\n",
        "the fix drops 2 items from what tests/test_x.py::cases returns; every case must still run",
    ),
    (
        "equality helper returns True",
        TEST_FILE,
        "def same(a, b):\n    return a == b\n",
        "def same(a, b):\n    return True\n",
        "the fix makes tests/test_x.py::same always return True, so every check that uses it "
        "passes",
    ),
    (
        "equality helper compares truthiness",
        TEST_FILE,
        "def same(a, b):\n    return a == b\n",
        "def same(a, b):\n    return bool(a) == bool(b)\n",
        "compares bool(a) where it compared a: bool() tells fewer values apart in "
        "tests/test_x.py::same, and every check that uses it now demands less",
    ),
    (
        "a local alias shadows the code under test",
        TEST_FILE,
        "def test_price():\n    assert price(17) == 42\n",
        "def test_price():\n    price = lambda n: 42\n    assert price(17) == 42\n",
        "the fix rebinds price inside tests/test_x.py::test_price, where it was read from the "
        "module, so the test runs a stand-in instead of the code it tested",
    ),
    (
        "a shadowing import inside the test",
        TEST_FILE,
        "def test_price():\n    assert price(17) == 42\n",
        "def test_price():\n    from fake import price\n    assert price(17) == 42\n",
        "the fix rebinds price inside tests/test_x.py::test_price",
    ),
    (
        "a fixture takes the place of the code",
        TEST_FILE,
        "def test_price():\n    assert price(17) == 42\n",
        "def test_price(price):\n    assert price(17) == 42\n",
        "the fix rebinds price inside tests/test_x.py::test_price",
    ),
    (
        "raises widened to Exception",
        TEST_FILE,
        "def test_bad():\n    with pytest.raises(ValueError):\n        parse('x')\n",
        "def test_bad():\n    with pytest.raises(Exception):\n        parse('x')\n",
        "the fix widens pytest.raises(ValueError) to pytest.raises(Exception) in "
        "tests/test_x.py::test_bad, which accepts Exception too; expect the exception the code "
        "should raise",
    ),
    (
        "raises widened to BaseException",
        TEST_FILE,
        "def test_bad():\n    with pytest.raises(ValueError):\n        parse('x')\n",
        "def test_bad():\n    with pytest.raises(BaseException):\n        parse('x')\n",
        "which accepts BaseException too",
    ),
    (
        "raises widened with a tuple",
        TEST_FILE,
        "def test_bad():\n    with pytest.raises(ValueError):\n        parse('x')\n",
        "def test_bad():\n    with pytest.raises((ValueError, TypeError)):\n        parse('x')\n",
        "which accepts TypeError too",
    ),
    (
        "raises widened to a builtin parent",
        TEST_FILE,
        "def test_bad():\n    with pytest.raises(KeyError):\n        parse('x')\n",
        "def test_bad():\n    with pytest.raises(LookupError):\n        parse('x')\n",
        "which accepts LookupError too",
    ),
    (
        "assertRaises widened",
        TEST_FILE,
        "def test_bad(self):\n    with self.assertRaises(ValueError):\n        parse('x')\n",
        "def test_bad(self):\n    with self.assertRaises(Exception):\n        parse('x')\n",
        "the fix widens self.assertRaises(ValueError) to self.assertRaises(Exception)",
    ),
    (
        "match= dropped",
        TEST_FILE,
        "def test_bad():\n    with pytest.raises(ValueError, match='empty'):\n        parse('')\n",
        "def test_bad():\n    with pytest.raises(ValueError):\n        parse('')\n",
        "the fix drops the message check of pytest.raises(ValueError, match='empty') in "
        "tests/test_x.py::test_bad, so any message passes; keep the match",
    ),
    (
        "assertRaisesRegex traded for assertRaises",
        TEST_FILE,
        "def test_bad(self):\n    with self.assertRaisesRegex(ValueError, 'empty'):\n"
        "        parse('')\n",
        "def test_bad(self):\n    with self.assertRaisesRegex(ValueError):\n        parse('')\n",
        "drops the message check",
    ),
    (
        "raises removed",
        TEST_FILE,
        "def test_bad():\n    with pytest.raises(ValueError):\n        parse('x')\n",
        "def test_bad():\n    parse('x')\n",
        "the fix removes pytest.raises(ValueError) from tests/test_x.py::test_bad, so the test no "
        "longer checks that the code raises",
    ),
    (
        "f(x) == f(x_reordered)",
        TEST_FILE,
        "def test_sort():\n    assert sort([3, 1, 2]) == [1, 2, 3]\n",
        "def test_sort():\n    assert sort([3, 1, 2]) == sort([1, 2, 3])\n",
        "compares sort([3, 1, 2]) == sort([1, 2, 3]), the code under test with itself, which "
        "passes whatever sort returns",
    ),
    (
        "(m := f()) == m",
        TEST_FILE,
        "def test_total():\n    assert total() == 6\n",
        "def test_total():\n    assert (m := total()) == m\n",
        "turns the check `total() == 6` into `(m := total()) == m`, which cannot fail",
    ),
    (
        "bool(a) == bool(b) in the test",
        TEST_FILE,
        "def test_total():\n    assert total() == 6\n",
        "def test_total():\n    assert bool(total()) == bool(6)\n",
        "compares bool(total()) where it compared total(): bool() tells fewer values apart",
    ),
    (
        "len(a) == len(b) in the test",
        TEST_FILE,
        "def test_items():\n    assert items() == [1, 2]\n",
        "def test_items():\n    assert len(items()) == len([1, 2])\n",
        "len() tells fewer values apart",
    ),
]


@pytest.mark.parametrize(
    ("path", "before", "after", "reason"), [m[1:] for m in MISSES], ids=[m[0] for m in MISSES]
)
def test_what_the_guard_missed_is_refused(path: str, before: str, after: str, reason: str) -> None:
    tests = TestFiles(frozenset({TEST_FILE, CONFTEST}), patterns=())

    result = review_one(make_edit(after, path), before, tests)

    assert result.refused is not None
    assert reason in result.refused
    assert result.refused.startswith("the fix ")


STILL_ALLOWED = [
    (
        "a fixture builds its object another way",
        CONFTEST,
        "@pytest.fixture\ndef cart():\n    return Cart(items=[])\n",
        "@pytest.fixture\ndef cart():\n    return Cart([])\n",
        (),
    ),
    (
        "a parametrize helper changes a case",
        TEST_FILE,
        "def cases():\n    return [(1, 2), (2, 4)]\n",
        "def cases():\n    return [(1, 2), (2, 5)]\n",
        ("changes what tests/test_x.py::cases returns: `[(1, 2), (2, 4)]` → `[(1, 2), (2, 5)]`",),
    ),
    (
        "an equality helper made stricter",
        TEST_FILE,
        "def same(a, b):\n    return a == b\n",
        "def same(a, b):\n    return a == b and type(a) is type(b)\n",
        (),
    ),
    (
        "raises narrowed",
        TEST_FILE,
        "def test_bad():\n    with pytest.raises(Exception):\n        parse('x')\n",
        "def test_bad():\n    with pytest.raises(ValueError):\n        parse('x')\n",
        (
            "changes what tests/test_x.py::test_bad expects: pytest.raises(Exception) → "
            "pytest.raises(ValueError)",
        ),
    ),
    (
        "match= added",
        TEST_FILE,
        "def test_bad():\n    with pytest.raises(ValueError):\n        parse('')\n",
        "def test_bad():\n    with pytest.raises(ValueError, match='empty'):\n        parse('')\n",
        (),
    ),
    (
        "a commutativity check stays",
        TEST_FILE,
        "def test_add():\n    assert add(1, 2) == add(2, 1)\n",
        "def test_add():\n    assert add(1, 2) == add(2, 1)\n    assert add(0, 2) == 2\n",
        (),
    ),
    (
        "a local result variable",
        TEST_FILE,
        "def test_price():\n    assert price(17) == 42\n",
        "def test_price():\n    result = price(17)\n    assert result == 42\n",
        ("changes what tests/test_x.py::test_price checks: `price(17) == 42` → `result == 42`",),
    ),
]


@pytest.mark.parametrize(
    ("path", "before", "after", "notices"),
    [m[1:] for m in STILL_ALLOWED],
    ids=[m[0] for m in STILL_ALLOWED],
)
def test_what_looks_like_a_miss_but_is_not_stays_allowed(
    path: str, before: str, after: str, notices: tuple[str, ...]
) -> None:
    tests = TestFiles(frozenset({TEST_FILE, CONFTEST}), patterns=())

    assert review_one(make_edit(after, path), before, tests) == Review(None, notices)


def test_an_import_that_rebinds_what_a_test_file_imports_is_refused() -> None:
    module = {TEST_FILE: "from shop import price\n\n\ndef test_price():\n    pass\n"}.get
    shadow = make_edit("from fake_shop import price\n", kind="import")
    helper = make_edit("def price(n):\n    return 42\n", kind="helper")
    same = make_edit("from shop import price\n", kind="import")

    for edit in (shadow, helper):
        result = review([edit], TESTS, lambda _e: None, module)
        assert result.refused == (
            "the fix rebinds price in tests/test_x.py, which the file imports from shop, so the "
            "test runs a stand-in instead of the code it tested"
        )
    assert review([same], TESTS, lambda _e: None, module) == Review(None, ())
