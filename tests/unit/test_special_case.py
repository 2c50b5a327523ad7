"""Special cases: a fix of the code that answers the failing test's own inputs with its own expected
values, returns its expected constant, or swallows its exception is refused or flagged; ordinary
fixes, and literals that have nothing to do with the test, are not."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from pytest_caretaker.guard.failing import Failing, failing
from pytest_caretaker.guard.weakening import Review, review
from pytest_caretaker.problem import Problem
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.results import Edit, Failure

CODE = "src/shop.py"
TESTS = TestFiles(frozenset({"tests/test_shop.py"}), patterns=())
TEST = dedent("""
    def test_price():
        assert price(17) == 42
    """)
PARAMETRIZED = dedent("""
    @pytest.mark.parametrize(("op", "a", "b", "want"), [("mul", 6, 7, 42)])
    def test_calc(op, a, b, want):
        assert calc(op, a, b) == want
    """)
BEFORE = "def price(n):\n    return n * 2\n"
CALC = 'def calc(op, a, b):\n    if op == "add":\n        return a + b\n    raise ValueError(op)\n'


def judge(after: str, before: str | None = BEFORE, test: str = TEST, exc: str = "") -> Review:
    edit = Edit("replace", CODE, after.split("(")[0].removeprefix("def "), after)
    known = Failing((test,), (exc,) if exc else ())
    return review([edit], TESTS, lambda _e: before, failing=known)


REFUSED = [
    (
        "if x == 17: return 42",
        "def price(n):\n    if n == 17:\n        return 42\n    return n * 2\n",
        "the fix special-cases the failing test in src/shop.py::price: when `n == 17` it "
        "returns 42, the test's own values; make the code right for every input, not for the "
        "test's",
    ),
    (
        "17 == n, reversed",
        "def price(n):\n    if 17 == n:\n        return 42\n    return n * 2\n",
        "when `17 == n` it returns 42",
    ),
    (
        "n in (17,)",
        "def price(n):\n    if n in (17, 18):\n        return 42\n    return n * 2\n",
        "when `n in (17, 18)` it returns 42",
    ),
    (
        "conditional expression",
        "def price(n):\n    return 42 if n == 17 else n * 2\n",
        "when `n == 17` it returns 42",
    ),
    (
        "returns the expected constant",
        "def price(n):\n    return 42\n",
        "the fix makes src/shop.py::price return 42, the value the failing test expects, "
        "instead of computing it",
    ),
    (
        "returns it first",
        "def price(n):\n    return 42\n    return n * 2\n",
        "return 42, the value the failing test expects",
    ),
    (
        "except Exception returns a default",
        "def price(n):\n    try:\n        return n * 2\n    except Exception:\n        return 0\n",
        "the fix in src/shop.py::price catches every exception and returns 0, which hides the "
        "failure instead of fixing it; catch only what the code should handle",
    ),
    (
        "bare except passes",
        "def price(n):\n    try:\n        return n * 2\n    except:\n        pass\n",
        "catches every exception and returns nothing",
    ),
    (
        "except (ValueError, Exception)",
        "def price(n):\n    try:\n        return n * 2\n    except (ValueError, Exception):\n"
        "        return None\n",
        "catches every exception and returns None",
    ),
    (
        "the expected value on the failing exception",
        "def price(n):\n    try:\n        return n * 2\n    except ZeroDivisionError:\n"
        "        return 42\n",
        "returns 42, the value the failing test expects, when ZeroDivisionError is raised",
    ),
]


@pytest.mark.parametrize(("after", "reason"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_special_case_of_the_failing_test_is_refused(after: str, reason: str) -> None:
    result = judge(after, exc="ZeroDivisionError")

    assert result.refused is not None
    assert reason in result.refused


def test_a_parametrized_case_is_the_test_s_too() -> None:
    after = CALC.replace(
        "    raise", '    if op == "mul" and a == 6:\n        return 42\n    raise'
    )

    result = judge(after, CALC, PARAMETRIZED)

    assert result.refused is not None
    assert "when `op == 'mul'` it returns 42" in result.refused


NOTICED = [
    (
        "a branch for the test's input that computes",
        CALC.replace("    raise", '    if op == "mul":\n        return a * b\n    raise'),
        CALC,
        PARAMETRIZED,
        "compares `op == 'mul'` in src/shop.py::calc, an input of the failing test; check that "
        "it is not a special case for the test",
    ),
    (
        "catches the failing exception",
        "def price(n):\n    try:\n        return 84 // n\n    except ZeroDivisionError:\n"
        "        return None\n",
        "def price(n):\n    return 84 // n\n",
        TEST,
        "catches ZeroDivisionError, the failing test's exception, in src/shop.py::price and "
        "returns None; check that this is the intended behaviour",
    ),
]


@pytest.mark.parametrize(
    ("after", "before", "test", "notice"), [c[1:] for c in NOTICED], ids=[c[0] for c in NOTICED]
)
def test_a_doubtful_fix_is_allowed_and_flagged(
    after: str, before: str, test: str, notice: str
) -> None:
    assert judge(after, before, test, "ZeroDivisionError") == Review(None, (notice,))


ALLOWED = [
    ("the ordinary fix", "def price(n):\n    return n * 2 + 8\n"),
    (
        "an unrelated early return",
        "def price(n):\n    if n < 0:\n        return 99\n    return n * 2\n",
    ),
    (
        "a guard on a trivial literal",
        "def price(n):\n    if n == 0:\n        return 1\n    return n\n",
    ),
    (
        "an ordering, not a pin",
        "def price(n):\n    if n >= 17:\n        return 42\n    return n * 2\n",
    ),
    ("a lookup table", "def price(n):\n    return {17: 42}.get(n, n * 2)\n"),
    (
        "a narrow except that re-raises",
        "def price(n):\n    try:\n        return n * 2\n    except TypeError:\n"
        "        raise ValueError(n) from None\n",
    ),
]


@pytest.mark.parametrize("after", [c[1] for c in ALLOWED], ids=[c[0] for c in ALLOWED])
def test_an_ordinary_fix_is_neither_refused_nor_flagged(after: str) -> None:
    assert judge(after, exc="ZeroDivisionError") == Review(None, ())


def test_a_function_of_constants_may_change_its_constant() -> None:
    before = "def label():\n    return 'OK'\n"
    test = "def test_label():\n    assert label() == 'ok'\n"

    assert judge("def label():\n    return 'ok'\n", before, test) == Review(None, ())


@pytest.mark.parametrize(
    "before",
    [
        "def level():\n    return 1\n",
        "def level():\n    return 41 + 1\n",
        "def level():\n    return -(6 * 7)\n",
    ],
    ids=["a small literal", "a sum of literals", "an expression of literals"],
)
def test_an_expression_of_constants_is_a_constant_too(before: str) -> None:
    test = "def test_level():\n    assert level() == 17\n"

    assert judge("def level():\n    return 17\n", before, test) == Review(None, ())
    # Computed from an input, the same constant is the test's special case.
    computed = "def level(n=0):\n    return n + 1\n"
    assert judge("def level(n=0):\n    return 17\n", computed, test).refused is not None


def test_what_the_code_already_did_stays() -> None:
    before = "def price(n):\n    if n == 17:\n        return 42\n    return n\n"
    after = "def price(n):\n    if n == 17:\n        return 42\n    return n * 2\n"

    assert judge(after, before) == Review(None, ())


PARSE = dedent(
    """\
    class Reader:
        def parse(self, text):
            try:
                rows = text.split(SEP)
                return len(rows) - 1
            except Exception:
                return None
    """
)


@pytest.mark.parametrize(
    ("label", "before", "after"),
    [
        pytest.param(
            "kept as it was",
            "def parse(self, text):\n" + PARSE.split("def parse(self, text):\n")[1],
            "def parse(self, text):\n"
            + PARSE.split("def parse(self, text):\n")[1].replace("len(rows) - 1", "len(rows)"),
            id="kept-as-it-was",
        ),
        pytest.param(
            "its variable renamed",
            "def f(s):\n    try:\n        return int(s) + 1\n    except Exception as e:\n"
            "        return None\n",
            "def f(s):\n    try:\n        return int(s)\n    except Exception as error:\n"
            "        return None\n",
            id="renamed",
        ),
        pytest.param(
            # A method whose string holds lines less indented than the def: its dedented
            # source does not parse, and every handler in it looked new (#34).
            "in a method with a flush-left string",
            '    def parse(self, text):\n        try:\n            return text.split("""\n'
            '"""\n)[1]\n        except Exception:\n            return None\n',
            'def parse(self, text):\n    try:\n        return text.split("""\n"""\n)[0]\n'
            "    except Exception:\n        return None\n",
            id="flush-left-string",
        ),
    ],
)
def test_a_broad_except_the_code_already_had_is_not_the_fixs(
    label: str, before: str, after: str
) -> None:
    # A guard judges what the edit adds, never what the original already had (#34).
    assert judge(after, before).refused is None, label


def test_without_the_failing_tests_nothing_is_judged_a_special_case() -> None:
    edit = Edit("replace", CODE, "price", REFUSED[0][1])

    assert review([edit], TESTS, lambda _e: BEFORE) == Review(None, ())


def test_failing_reads_the_failing_tests_and_their_exceptions(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    source = "import pytest\n\n\nclass TestShop:\n" + "".join(
        f"    {line}\n" for line in PARAMETRIZED.strip().splitlines()
    )
    (tmp_path / "tests" / "test_shop.py").write_text(source)
    case = Failure(
        "tests/test_shop.py::TestShop::test_calc[mul-6-7-42]",
        "call",
        "tests/test_shop.py",
        "ValueError",
        "mul",
        "",
        (),
    )
    missing = Failure("tests/gone.py::test_x", "call", "tests/gone.py", "KeyError", "", "", ())

    found = failing(Problem((case, missing)), ProjectFiles(tmp_path))

    assert found.sources == (PARAMETRIZED.lstrip("\n"),)
    assert found.exceptions == ("ValueError", "KeyError")
    assert {"'mul'", "6", "7", "42", "('mul', 6, 7, 42)"} <= found.literals
