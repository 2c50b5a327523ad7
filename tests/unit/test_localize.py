"""Localize: definitions of a file, test file membership, Ochiai scores and the ranking."""

from __future__ import annotations

import dataclasses
import math
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_caretaker.project import localize as loc
from pytest_caretaker.project.files import Definition, ProjectFiles, SourceFile
from pytest_caretaker.project.localize import Suspect, localize, ochiai
from pytest_caretaker.results import Executed, Failure, Frame


def source_file(text: str, path: str = "mod.py") -> SourceFile:
    return SourceFile(path, textwrap.dedent(text).encode())


# -- ochiai ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("failed", "passed", "total_failed", "expected"),
    [
        (1, 0, 1, 1.0),
        (1, 3, 1, 0.5),
        (0, 0, 1, 0.0),
        (0, 5, 3, 0.0),
        (2, 2, 4, 0.5),  # 2 / sqrt(4 * 4)
        (1, 2, 1, 1 / math.sqrt(3)),
        (2, 0, 2, 1.0),
        (1, 0, 2, 1 / math.sqrt(2)),
        (1, 1, 0, 0.0),  # no failing test was traced
    ],
)
def test_ochiai(failed: int, passed: int, total_failed: int, expected: float) -> None:
    assert ochiai(failed, passed, total_failed) == pytest.approx(expected)


def test_ochiai_is_lower_when_passing_tests_also_run_the_code() -> None:
    assert ochiai(1, 0, 1) > ochiai(1, 1, 1) > ochiai(1, 5, 1) > ochiai(0, 0, 1)


# -- SourceFile ------------------------------------------------------------------------------------

MODULE = """\
import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    def typed_only() -> None: ...
else:
    def runtime_only():
        return 1

try:
    def in_try():
        return 2
finally:
    def in_finally():
        return 3


def plain(x):
    return x


@functools.lru_cache(
    maxsize=None,
)
@staticmethod
def decorated(x):
    return x


class Shape:
    sides = 0

    def area(self):
        return 0

    @property
    def name(self):
        return "shape"

    class Inner:
        def deep(self):
            return 1


def outer(n):
    total = n

    def inner(m):
        return m + 1

    total += inner(n)
    return total


async def fetch():
    with open("x") as handle:
        def reader():
            return handle.read()
    return reader
"""


def test_definitions_qualnames_and_lines() -> None:
    found = {d.qualname: (d.start, d.end, d.body_start) for d in source_file(MODULE).definitions}
    assert found == {
        "typed_only": (5, 5, 5),
        "runtime_only": (7, 8, 8),
        "in_try": (11, 12, 12),
        "in_finally": (14, 15, 15),
        "plain": (18, 19, 19),
        "decorated": (22, 27, 27),  # starts at the first decorator
        "Shape.sides": (31, 31, 31),  # a class-level assignment
        "Shape.area": (33, 34, 34),
        "Shape.name": (36, 38, 38),
        "Shape.Inner.deep": (41, 42, 42),
        "outer": (45, 52, 46),
        "outer.inner": (48, 49, 49),
        "fetch": (55, 59, 56),
        "fetch.reader": (57, 58, 58),
    }


def test_definitions_skip_classes_themselves() -> None:
    qualnames = [d.qualname for d in source_file(MODULE).definitions]
    assert "Shape" not in qualnames
    assert "Shape.Inner" not in qualnames


def test_definitions_inside_except_and_else_of_try() -> None:
    text = """\
    try:
        from fastcalc import mean
    except ImportError:
        def mean(values):
            return sum(values) / len(values)
    else:
        def median(values):
            return sorted(values)[len(values) // 2]
    """
    found = {d.qualname: (d.start, d.end) for d in source_file(text).definitions}
    assert found == {"mean": (4, 5), "median": (7, 8)}


@pytest.mark.parametrize(
    ("text", "qualname", "start"),
    [
        pytest.param(
            "async def serve(lock):\n    async with lock:\n        def handle():\n"
            "            return 1\n    return handle\n",
            "serve.handle",
            3,
            id="async-with",
        ),
        pytest.param(
            "try:\n    def parse():\n        return 1\nexcept* ValueError:\n    pass\n",
            "parse",
            2,
            id="try-star",
            marks=pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is 3.11+"),
        ),
    ],
)
def test_definitions_inside_other_blocks(text: str, qualname: str, start: int) -> None:
    source = SourceFile("mod.py", text.encode())
    definition = source.enclosing(start + 1)
    assert definition is not None
    assert (definition.qualname, definition.start) == (qualname, start)


def test_definitions_of_a_file_that_does_not_parse() -> None:
    assert source_file("def broken(:\n    pass\n").definitions == ()


def test_find() -> None:
    source = source_file(MODULE)
    assert source.find("Shape.area") == Definition("Shape.area", 33, 34, 34, method=True)
    assert source.find("area") is None


@pytest.mark.parametrize(
    ("line", "qualname"),
    [
        (19, "plain"),
        (22, "decorated"),  # a decorator line belongs to the function
        (26, "decorated"),
        (34, "Shape.area"),
        (37, "Shape.name"),
        (42, "Shape.Inner.deep"),
        (46, "outer"),
        (48, "outer.inner"),
        (49, "outer.inner"),
        (51, "outer"),  # after the nested function ends
        (58, "fetch.reader"),
        (59, "fetch"),
    ],
)
def test_enclosing_returns_the_innermost_function(line: int, qualname: str) -> None:
    definition = source_file(MODULE).enclosing(line)
    assert definition is not None
    assert definition.qualname == qualname


@pytest.mark.parametrize("line", [1, 3, 16, 30, 39, 200])
def test_enclosing_outside_any_function(line: int) -> None:
    assert source_file(MODULE).enclosing(line) is None


def test_source_of_includes_decorators() -> None:
    source = source_file(MODULE)
    definition = source.find("decorated")
    assert definition is not None
    assert source.source_of(definition) == (
        "@functools.lru_cache(\n    maxsize=None,\n)\n@staticmethod\n"
        "def decorated(x):\n    return x\n"
    )


def test_latin1_file_with_coding_cookie() -> None:
    data = "# -*- coding: latin-1 -*-\nNAME = 'café'\n\n\ndef greet():\n    return NAME\n"
    source = SourceFile("legacy.py", data.encode("latin-1"))
    assert b"caf\xe9" in source.data
    assert source.text == data
    assert source.lines[1] == "NAME = 'café'"
    assert [(d.qualname, d.start, d.end) for d in source.definitions] == [
        ("NAME", 2, 2),
        ("greet", 5, 6),
    ]


def test_utf8_bom_is_dropped_from_text() -> None:
    source = SourceFile("bom.py", b"\xef\xbb\xbfdef f():\n    return '\xc3\xa9'\n")
    assert source.text == "def f():\n    return 'é'\n"
    assert source.find("f") == Definition("f", 1, 2, 2)


# -- ProjectFiles -----------------------------------------------------------------------------


def test_sources_reads_each_file_once(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_bytes(b"def a():\n    return 1\n")
    sources = ProjectFiles(root)
    first = sources.get("pkg/a.py")
    assert first is not None
    assert first.path == "pkg/a.py"
    assert first.data == b"def a():\n    return 1\n"

    (root / "pkg" / "a.py").write_bytes(b"changed\n")
    assert sources.get("pkg/a.py") is first
    assert sources.get("missing.py") is None


# -- TestFiles -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("checks/collected_here.py", True),  # collected, whatever its name
        ("conftest.py", True),
        ("src/pkg/conftest.py", True),
        ("tests/test_calc.py", True),
        ("test_top.py", True),
        ("tests/calc_test.py", True),
        ("calc.py", False),
        ("src/pkg/testing.py", False),
        ("tests/helpers.py", False),
        ("tests/test_calc.pyi", False),
    ],
)
def test_test_files_default_patterns(rel: str, expected: bool) -> None:
    tests = loc.TestFiles(frozenset({"checks/collected_here.py"}))
    assert (rel in tests) is expected


def test_test_files_custom_patterns() -> None:
    tests = loc.TestFiles(frozenset(), patterns=("check_*.py",))
    assert "tests/check_io.py" in tests
    assert "tests/test_io.py" not in tests
    assert "conftest.py" in tests


def test_test_files_only_hold_strings() -> None:
    tests = loc.TestFiles(frozenset({"test_a.py"}))
    assert Path("test_a.py") not in tests
    assert None not in tests


# -- localize --------------------------------------------------------------------------------------

CALC = """\
def helper(x):
    return x + 1


def buggy(x):
    return x * 3


def unused():
    return 0
"""

TEST_CALC = """\
from calc import buggy, helper


def test_buggy():
    assert helper(1) == 2
    assert buggy(2) == 4


def test_helper():
    assert helper(2) == 3


def test_helper_again():
    assert helper(0) == 1
"""

FAILING = "test_calc.py::test_buggy"
PASSING = ["test_calc.py::test_helper", "test_calc.py::test_helper_again"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path.resolve()
    (root / "calc.py").write_text(CALC)
    (root / "test_calc.py").write_text(TEST_CALC)
    return root


def failure(*frames: Frame) -> Failure:
    return Failure(
        nodeid=FAILING,
        when="call",
        path="test_calc.py",
        exc_type="AssertionError",
        message="assert 6 == 4",
        longrepr="E   assert 6 == 4",
        frames=frames,
    )


def traces() -> dict[str, Executed]:
    # Functions as (path, first line of the def), in call order: the failing test calls helper
    # before buggy, so only the scores can put buggy ahead.
    return {
        FAILING: Executed(functions=(("test_calc.py", 4), ("calc.py", 1), ("calc.py", 5))),
        PASSING[0]: Executed(functions=(("test_calc.py", 9), ("calc.py", 1))),
        PASSING[1]: Executed(functions=(("test_calc.py", 13), ("calc.py", 1))),
    }


def test_localize_ranks_traceback_then_suspicious_code(project: Path) -> None:
    candidates = localize(
        failure(Frame("test_calc.py", 6, "test_buggy")),
        [FAILING],
        traces(),
        PASSING,
        ProjectFiles(project),
        loc.TestFiles(frozenset({"test_calc.py"})),
    )
    assert [c.ref for c in candidates] == [
        "test_calc.py::test_buggy",
        "calc.py::buggy",
        "calc.py::helper",
    ]
    test_buggy, buggy, helper = candidates
    assert test_buggy == Suspect("test_calc.py", "test_buggy", True, 1.0, (6,))
    assert buggy == Suspect("calc.py", "buggy", False, 1.0, ())
    assert helper.is_test is False
    assert helper.failed_lines == ()
    assert helper.score == pytest.approx(1 / math.sqrt(3))
    assert all(c.qualname != "unused" for c in candidates)


def test_localize_puts_the_innermost_frame_first(project: Path) -> None:
    candidates = localize(
        failure(
            Frame("test_calc.py", 6, "test_buggy"),
            Frame("calc.py", 6, "buggy"),
            Frame("/usr/lib/python3/somewhere.py", 3, "elsewhere"),  # not a project file
        ),
        [FAILING],
        traces(),
        PASSING,
        ProjectFiles(project),
        loc.TestFiles(frozenset({"test_calc.py"})),
    )
    assert [(c.ref, c.failed_lines) for c in candidates] == [
        ("calc.py::buggy", (6,)),
        ("test_calc.py::test_buggy", (6,)),
        ("calc.py::helper", ()),
    ]


def test_localize_merges_frames_of_one_function(project: Path) -> None:
    candidates = localize(
        failure(
            Frame("test_calc.py", 6, "test_buggy"),
            Frame("test_calc.py", 5, "test_buggy"),
            Frame("test_calc.py", 6, "test_buggy"),
        ),
        [FAILING],
        {},
        [],
        ProjectFiles(project),
        loc.TestFiles(frozenset()),
    )
    assert candidates == (Suspect("test_calc.py", "test_buggy", True, 0.0, (5, 6)),)


def test_localize_without_traces_keeps_only_the_traceback(project: Path) -> None:
    candidates = localize(
        failure(Frame("test_calc.py", 6, "test_buggy")),
        [FAILING],
        {},
        PASSING,
        ProjectFiles(project),
        loc.TestFiles(frozenset()),
    )
    assert [(c.ref, c.score) for c in candidates] == [("test_calc.py::test_buggy", 0.0)]


def test_localize_with_two_failing_tests(project: Path) -> None:
    other = "test_calc.py::test_helper_again"
    executed = traces()
    candidates = localize(
        failure(Frame("test_calc.py", 6, "test_buggy")),
        [FAILING, other],
        executed,
        [PASSING[0]],
        ProjectFiles(project),
        loc.TestFiles(frozenset()),
    )
    scores = {c.ref: c.score for c in candidates}
    # helper: run by both failing tests and by the passing one -> 2 / sqrt(2 * 3)
    assert scores["calc.py::helper"] == pytest.approx(2 / math.sqrt(6))
    # buggy: run by one of the two failing tests only -> 1 / sqrt(2 * 1)
    assert scores["calc.py::buggy"] == pytest.approx(1 / math.sqrt(2))
    assert scores["test_calc.py::test_helper_again"] == pytest.approx(1 / math.sqrt(2))
    assert [c.ref for c in candidates] == [
        "test_calc.py::test_buggy",
        "calc.py::helper",
        "calc.py::buggy",
        "test_calc.py::test_helper_again",
    ]


# -- line_scores -----------------------------------------------------------------------------------

F1 = "test_m.py::test_fails"
F2 = "test_m.py::test_fails_too"
P1, P2, P3 = "test_m.py::test_a", "test_m.py::test_b", "test_m.py::test_c"


def ran(*lines: int, path: str = "m.py") -> Executed:
    return Executed(lines={path: frozenset(lines)})


def spectrum() -> dict[str, Executed]:
    """Line 1: every test; 2: F1 and two passing; 3: F1 and F2 only; 4: F2 only; 5: F1 only;
    7, 8: passing tests only."""
    return {
        F1: ran(1, 2, 3, 5),
        F2: ran(1, 3, 4),
        P1: ran(1, 2, 7),
        P2: ran(1, 2),
        P3: ran(1, 8),
    }


def test_line_scores_of_one_failing_test() -> None:
    scores = loc.line_scores([F1], [P1, P2, P3], spectrum())
    assert scores == {
        ("m.py", 1): pytest.approx(1 / math.sqrt(4)),  # failing and 3 passing: 0.5
        ("m.py", 2): pytest.approx(1 / math.sqrt(3)),  # failing and 2 passing
        ("m.py", 3): 1.0,  # the failing test only
        ("m.py", 5): 1.0,
    }
    assert scores[("m.py", 1)] == pytest.approx(0.5)


def test_line_scores_leave_out_lines_only_passing_tests_ran() -> None:
    scores = loc.line_scores([F1], [P1, P2, P3], spectrum())
    assert ("m.py", 7) not in scores
    assert ("m.py", 8) not in scores
    assert ("m.py", 4) not in scores  # run by a failing test that is not in this group


def test_line_scores_of_two_failing_tests() -> None:
    scores = loc.line_scores([F1, F2], [P1, P2, P3], spectrum())
    assert scores == {
        ("m.py", 1): pytest.approx(2 / math.sqrt(2 * 5)),
        ("m.py", 2): pytest.approx(1 / math.sqrt(2 * 3)),
        ("m.py", 3): pytest.approx(1.0),  # 2 / sqrt(2 * 2): every failing test, no passing one
        ("m.py", 4): pytest.approx(1 / math.sqrt(2)),
        ("m.py", 5): pytest.approx(1 / math.sqrt(2)),
    }


def test_line_scores_without_passing_tests() -> None:
    scores = loc.line_scores([F1, F2], [], spectrum())
    assert scores[("m.py", 1)] == pytest.approx(1.0)
    assert scores[("m.py", 5)] == pytest.approx(1 / math.sqrt(2))


def test_line_scores_a_failing_test_without_a_trace_does_not_count() -> None:
    missing = "test_m.py::test_not_traced"
    with_missing = loc.line_scores([F1, missing], [P1, P2, P3], spectrum())
    assert with_missing == loc.line_scores([F1], [P1, P2, P3], spectrum())
    assert with_missing[("m.py", 3)] == 1.0  # total_failed is 1, not 2


def test_line_scores_a_passing_test_without_a_trace_is_ignored() -> None:
    scores = loc.line_scores([F1], [P1, "test_m.py::test_not_traced"], spectrum())
    assert scores[("m.py", 1)] == pytest.approx(1 / math.sqrt(2))
    assert scores[("m.py", 2)] == pytest.approx(1 / math.sqrt(2))
    assert scores[("m.py", 3)] == 1.0


def test_line_scores_tell_files_apart() -> None:
    executed = {
        F1: Executed(lines={"a.py": frozenset({1}), "b.py": frozenset({1})}),
        P1: ran(1, path="a.py"),
    }
    assert loc.line_scores([F1], [P1], executed) == {
        ("a.py", 1): pytest.approx(1 / math.sqrt(2)),
        ("b.py", 1): 1.0,
    }


def test_line_scores_ignore_the_functions_of_a_trace() -> None:
    executed = {F1: Executed(functions=(("m.py", 1),)), P1: ran(1)}
    assert loc.line_scores([F1], [P1], executed) == {}


@pytest.mark.parametrize(
    ("failing", "passing"),
    [
        pytest.param([], [P1, P2], id="no-failing-tests"),
        pytest.param(["test_m.py::test_not_traced"], [P1], id="failing-test-not-traced"),
    ],
)
def test_line_scores_empty(failing: list[str], passing: list[str]) -> None:
    assert loc.line_scores(failing, passing, spectrum()) == {}


def test_lines_match_ast_line_numbers_after_a_form_feed() -> None:
    source = SourceFile("mod.py", b"def f():\n    return 1\n\x0c\ndef g():\n    return 2\n")
    assert source.find("g") == Definition("g", 4, 5, 5)
    assert source.lines[3] == "def g():"
    assert source.source_of(Definition("g", 4, 5, 5)) == "def g():\n    return 2\n"


# -- assignments: definitions, the constants a function reads, lambdas ---------------------------

SHOP = """\
VAT = 0.25
LIMIT: int = 10
LIMIT += 5
a = b = 1
c = 1; d = 2
x, y = 1, 2
area = lambda w, h: w * w
HANDLERS = {"double": lambda n: n * 2}


class Shop:
    RATE = 0.1
    key = lambda self: self.RATE

    def price(self, net):
        return net * (1 + VAT + self.RATE + Shop.RATE)


def price(net, VAT_LOCAL=0):
    total = net * (1 + VAT)
    return round(total, 2)


def shadowed():
    VAT = 1
    return VAT


def declared():
    global VAT
    VAT = 0.3
    return VAT
"""


def test_assignments_are_definitions_with_their_kind() -> None:
    found = {
        (d.qualname, d.kind): (d.start, d.end, d.method, d.lambdas)
        for d in source_file(SHOP).definitions
        if d.kind != "function"
    }
    assert found == {
        ("VAT", "assignment"): (1, 1, False, False),
        ("LIMIT", "assignment"): (2, 2, False, False),
        ("LIMIT", "augmented"): (3, 3, False, False),
        ("area", "assignment"): (7, 7, False, True),
        ("HANDLERS", "assignment"): (8, 8, False, True),
        ("Shop.RATE", "assignment"): (12, 12, False, False),
        ("Shop.key", "assignment"): (13, 13, True, True),  # a lambda in a class: a method
    }  # a = b = 1, c = 1; d = 2, x, y = 1, 2 and assignments in functions are none


def test_find_and_enclosing_never_answer_an_augmented_assignment() -> None:
    source = source_file(SHOP)
    assert source.find("LIMIT") == Definition("LIMIT", 2, 2, 2, kind="assignment")
    assert source.find("LIMIT", "augmented") == Definition("LIMIT", 3, 3, 3, kind="augmented")
    assert source.enclosing(3) is None
    found = source.enclosing(7)
    assert found is not None and found.qualname == "area"


def reads_of(qualname: str, tmp_path: Path, **more: str) -> list[tuple[str, str]]:
    from pytest_caretaker.project.reads import reads

    (tmp_path / "shop.py").write_text(SHOP)
    for rel, text in more.items():
        (tmp_path / rel.replace("__", "/")).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel.replace("__", "/")).write_text(textwrap.dedent(text))
    files = ProjectFiles(tmp_path)
    main = "main.py" if "main.py" in more else "shop.py"
    source = files.get(main)
    assert source is not None
    definition = source.find(qualname)
    assert definition is not None
    return list(reads(source, definition, files.get))


@pytest.mark.parametrize(
    ("qualname", "expected"),
    [
        ("price", [("shop.py", "VAT")]),
        ("Shop.price", [("shop.py", "VAT"), ("shop.py", "Shop.RATE")]),
        ("Shop.key", [("shop.py", "Shop.RATE")]),
        ("shadowed", []),  # its own local VAT
        ("declared", [("shop.py", "VAT")]),  # global VAT
        ("VAT", []),  # itself
    ],
)
def test_reads_of_a_function(
    qualname: str, expected: list[tuple[str, str]], tmp_path: Path
) -> None:
    assert reads_of(qualname, tmp_path) == expected


def test_reads_give_the_line_of_the_first_read(tmp_path: Path) -> None:
    from pytest_caretaker.project.reads import reads

    source = source_file(SHOP, "shop.py")
    definition = source.find("Shop.price")
    assert definition is not None

    found = reads(source, definition, {"shop.py": source}.get)

    assert found == {("shop.py", "VAT"): 16, ("shop.py", "Shop.RATE"): 16}


def test_reads_follow_project_imports(tmp_path: Path) -> None:
    main = """\
    import config
    from shop import VAT as TAX
    from pkg.rates import RATE
    from .missing import NOTHING


    def total(net):
        return net * (1 + TAX + RATE + config.FEE + NOTHING + config.missing)
    """
    found = reads_of(
        "total",
        tmp_path,
        **{
            "main.py": main,
            "config.py": "FEE = 1\n",
            "src__pkg__rates.py": "RATE = 2\n",
        },
    )
    assert found == [("shop.py", "VAT"), ("src/pkg/rates.py", "RATE"), ("config.py", "FEE")]


def test_localize_adds_the_constants_suspects_read(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(SHOP)
    (tmp_path / "test_shop.py").write_text(
        "from shop import price\n\n\ndef test_price():\n    assert price(100) == 120\n"
    )
    nodeid = "test_shop.py::test_price"
    executed = {nodeid: Executed(functions=(("test_shop.py", 4), ("shop.py", 19), ("shop.py", 1)))}
    lead = Failure(
        nodeid=nodeid,
        when="call",
        path="test_shop.py",
        exc_type="AssertionError",
        message="assert 125.0 == 120",
        longrepr="",
        frames=(Frame("test_shop.py", 5, "test_price"),),
    )

    found = localize(
        lead,
        [nodeid],
        executed,
        [],
        ProjectFiles(tmp_path),
        loc.TestFiles(frozenset({"test_shop.py"})),
    )

    # The module's own code object (first line 1, the line of VAT) is no call of VAT's.
    assert [(s.ref, s.score) for s in found] == [
        ("test_shop.py::test_price", 1.0),
        ("shop.py::price", 1.0),
        ("shop.py::VAT", 1.0),
    ]


def test_localize_maps_a_lambda_that_ran_to_its_assignment(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(SHOP)
    nodeid = "test_shop.py::test_area"
    executed = {nodeid: Executed(functions=(("shop.py", 7), ("shop.py", 8)))}
    lead = Failure(nodeid, "call", "test_shop.py", "AssertionError", "", "", ())

    found = localize(
        lead, [nodeid], executed, [], ProjectFiles(tmp_path), loc.TestFiles(frozenset())
    )

    assert [s.ref for s in found] == ["shop.py::area", "shop.py::HANDLERS"]


def test_what_the_failing_test_calls_by_name_ranks_before_what_only_the_spectrum_favours(
    tmp_path: Path,
) -> None:
    root = tmp_path.resolve()
    (root / "fmt.py").write_text(
        "def _pad(s):\n    return s\n\n\ndef render(x):\n    return _pad(str(x)) * 2\n"
    )
    (root / "test_fmt.py").write_text(
        "from fmt import render\n\n\ndef test_render():\n    assert render(1) == '1'\n\n\n"
        "def test_render_empty():\n    assert render('') == ''\n"
    )
    failing, passing = "test_fmt.py::test_render", ["test_fmt.py::test_render_empty"]
    executed = {
        # The failing test ran _pad first (a decorator's or fixture's order), and render; the
        # passing one ran render only: the spectrum favours _pad.
        failing: Executed(functions=(("test_fmt.py", 4), ("fmt.py", 1), ("fmt.py", 5))),
        passing[0]: Executed(functions=(("test_fmt.py", 8), ("fmt.py", 5))),
    }
    found = Failure(
        nodeid=failing,
        when="call",
        path="test_fmt.py",
        exc_type="AssertionError",
        message="assert '11' == '1'",
        longrepr="E   assert '11' == '1'",
        frames=(Frame("test_fmt.py", 5, "test_render"),),
    )

    candidates = localize(
        found,
        [failing],
        executed,
        passing,
        ProjectFiles(root),
        loc.TestFiles(frozenset({"test_fmt.py"})),
    )

    assert [c.ref for c in candidates] == [
        "test_fmt.py::test_render",
        "fmt.py::render",
        "fmt.py::_pad",
    ]


def test_a_call_its_callee_refused_makes_the_callee_a_suspect(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "ver.py").write_text(
        "class Version:\n    def __init__(self, major, minor, patch, pre):\n"
        "        self.parts = (major, minor, patch, pre)\n"
    )
    (root / "test_ver.py").write_text(
        "from ver import Version\n\n\ndef test_default_pre():\n    assert Version(1, 2, 3).parts\n"
    )
    nodeid = "test_ver.py::test_default_pre"
    found = Failure(
        nodeid=nodeid,
        when="call",
        path="test_ver.py",
        exc_type="TypeError",
        message="Version.__init__() missing 1 required positional argument: 'pre'",
        longrepr="E   TypeError: Version.__init__() missing 1 required positional argument: 'pre'",
        frames=(Frame("test_ver.py", 5, "test_default_pre"),),
    )
    executed = {nodeid: Executed(functions=(("test_ver.py", 4),))}

    candidates = localize(
        found, [nodeid], executed, [], ProjectFiles(root), loc.TestFiles(frozenset({"test_ver.py"}))
    )

    assert [c.ref for c in candidates] == [
        "test_ver.py::test_default_pre",
        "ver.py::Version.__init__",
        "ver.py::Version",  # the class, as its head and method names
    ]


def test_a_project_value_the_failing_test_reads_and_what_made_it_at_import_are_suspects(
    tmp_path: Path,
) -> None:
    # python-slugify: `assert PRE_TRANSLATIONS == [...]`, a list made at import by
    # add_uppercase_char and star-imported by the package; no code under test ran in the test.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .special import *\n")
    (tmp_path / "pkg" / "special.py").write_text(
        "def add_upper(pairs):\n    return pairs\n\n\n_RAW = [('a', 'b')]\n"
        "LATIN = add_upper(_RAW)\nTABLE = LATIN + []\n"
    )
    (tmp_path / "test_pkg.py").write_text(
        "from pkg import TABLE\n\n\ndef test_table():\n"
        "    assert TABLE == [('A', 'B'), ('a', 'b')]\n"
    )
    lead = Failure("test_pkg.py::test_table", "call", "test_pkg.py", "AssertionError", "", "", ())
    lead = dataclasses.replace(lead, frames=(Frame("test_pkg.py", 5, "test_table"),))
    executed = {lead.nodeid: Executed(functions=(("test_pkg.py", 4),))}

    found = localize(
        lead,
        [lead.nodeid],
        executed,
        [],
        ProjectFiles(tmp_path),
        loc.TestFiles(frozenset({"test_pkg.py"})),
    )

    assert [s.ref for s in found] == [
        "test_pkg.py::test_table",
        "pkg/special.py::TABLE",
        "pkg/special.py::LATIN",
        "pkg/special.py::_RAW",
        "pkg/special.py::add_upper",
    ]


LOCALES = """\
class Locale:
    past = "{0} ago"

    def describe(self, n):
        return self.past.format(n)


class JapaneseLocale(Locale):
    \"\"\"Japanese.\"\"\"

    past = "{0}後"
    names = ["ja"]


class EnglishLocale(Locale):
    names = ["en"]
"""


def test_localize_adds_the_data_of_the_class_a_base_method_ran_on(tmp_path: Path) -> None:
    # arrow: Locale.describe formats with the subclass's `past`; no trace shows a class
    # attribute, but the trace says describe ran on a JapaneseLocale.
    (tmp_path / "locales.py").write_text(LOCALES)
    nodeid = "test_locales.py::test_japanese"
    ran_on = ((("locales.py", 4), ("locales.py", "JapaneseLocale")),)
    executed = {nodeid: Executed(functions=(("locales.py", 4),), classes=ran_on)}
    lead = Failure(nodeid, "call", "test_locales.py", "AssertionError", "", "", ())

    found = localize(
        lead, [nodeid], executed, [], ProjectFiles(tmp_path), loc.TestFiles(frozenset())
    )

    # The classes the test's name names first (naming.py), the closest first; then the method
    # and the constant it reads.
    assert [s.ref for s in found] == [
        "locales.py::JapaneseLocale",
        "locales.py::Locale",
        "locales.py::Locale.describe",
        "locales.py::Locale.past",
    ]
    # Named for none of them: the class it ran on first, then the method's own class.
    other = dataclasses.replace(lead, nodeid="test_calendar.py::test_describe")
    found = localize(
        other,
        [other.nodeid],
        {other.nodeid: executed[nodeid]},
        [],
        ProjectFiles(tmp_path),
        loc.TestFiles(frozenset()),
    )
    assert [s.ref for s in found][:2] == [
        "locales.py::Locale.describe",
        "locales.py::JapaneseLocale",
    ]
    without = {nodeid: Executed(functions=(("locales.py", 4),))}
    found = localize(
        lead, [nodeid], without, [], ProjectFiles(tmp_path), loc.TestFiles(frozenset())
    )
    assert "locales.py::JapaneseLocale" not in [s.ref for s in found]


def test_class_data_is_the_head_the_class_level_assignments_and_the_method_names() -> None:
    from pytest_caretaker.project.related import class_data

    source = source_file(LOCALES, "locales.py")

    assert class_data(source, "JapaneseLocale") == (
        'class JapaneseLocale(Locale):\n    past = "{0}後"\n    names = ["ja"]\n'
    )
    assert class_data(source, "Locale") == (
        'class Locale:\n    past = "{0} ago"\n    # methods: describe\n'
    )
    assert class_data(source, "Missing") is None
    methods_only = source_file("@dataclass\nclass V:\n    def f(self):\n        pass\n", "v.py")
    assert class_data(methods_only, "V") == "@dataclass\nclass V:\n    # methods: f\n"
    assert class_data(source_file("class E:\n    pass\n", "e.py"), "E") is None


def test_a_message_quoting_a_literal_ranks_its_function_before_the_spectrum(tmp_path: Path) -> None:
    # marshmallow: pytest.raises(match=...) caught the TypeError, so no frame of _bind_field is
    # in the traceback; the message it made (an f-string without its f) quotes its literal.
    (tmp_path / "schema.py").write_text(
        "def load(x):\n    return bind(x)\n\n\n"
        "def bind(x):\n"
        "    raise TypeError(\n"
        "        'Field for \"{name}\" must be declared as a Field instance, '\n"
        "        'not a class.'\n"
        "    )\n\n\n"
        'def other():\n    """must be declared as a Field instance"""\n'
        "    return 'must be declared as a Schema instance'\n"
    )
    nodeid = "test_schema.py::test_bind"
    ran = (("schema.py", 1), ("schema.py", 12), ("schema.py", 5))
    executed = {nodeid: Executed(functions=ran)}
    message = (
        'AssertionError: Regex pattern did not match.\n Actual message: \'Field for "{name}" '
        "must be declared as a Field instance, not a class.'"
    )
    lead = Failure(nodeid, "call", "test_schema.py", "AssertionError", message, "", ())

    found = localize(
        lead, [nodeid], executed, [], ProjectFiles(tmp_path), loc.TestFiles(frozenset())
    )

    # other() holds a shorter piece only in its docstring and a literal the message lacks.
    assert [s.qualname for s in found] == ["bind", "load", "other"]


def test_a_nested_function_that_ran_is_ranked_as_its_outermost_function(tmp_path: Path) -> None:
    # semver: the decorator's wrapper ran; the fix (and the prompt) is the decorator whole.
    (tmp_path / "ver.py").write_text(
        "def comparator(op):\n    def wrapper(self, other):\n        return op(self, other)\n"
        "    return wrapper\n\n\nclass V:\n    def m(self):\n        def inner():\n"
        "            return 1\n        return inner()\n"
    )
    nodeid = "test_ver.py::test_compare"
    executed = {nodeid: Executed(functions=(("ver.py", 2), ("ver.py", 9)))}
    lead = Failure(nodeid, "call", "test_ver.py", "AssertionError", "", "", ())

    found = localize(
        lead, [nodeid], executed, [], ProjectFiles(tmp_path), loc.TestFiles(frozenset())
    )

    assert [s.qualname for s in found] == ["comparator", "V.m", "V"]


def test_an_attribute_the_failing_test_assigns_ranks_the_property_of_that_name_first(
    tmp_path: Path,
) -> None:
    # semver: `v.major = 9` must raise "readonly"; the property `major` is what a fix changes.
    (tmp_path / "ver.py").write_text(
        "class V:\n    def __init__(self):\n        self._major = 1\n\n"
        "    @property\n    def major(self):\n        return self._major\n\n\n"
        "def _log():\n    pass\n"
    )
    (tmp_path / "test_ver.py").write_text(
        "from ver import V\n\n\ndef test_readonly():\n    v = V()\n    assert v.major\n"
        "    v.major = 9\n"
    )
    nodeid = "test_ver.py::test_readonly"
    ran = (("test_ver.py", 4), ("ver.py", 2), ("ver.py", 5), ("ver.py", 10))
    other = "test_ver.py::test_reads"  # reads major too: the spectrum ranks _log above it
    executed = {nodeid: Executed(functions=ran), other: Executed(functions=(("ver.py", 5),))}
    lead = Failure(
        nodeid, "call", "test_ver.py", "Failed", "", "", (Frame("test_ver.py", 7, "test_readonly"),)
    )
    tests = loc.TestFiles(frozenset({"test_ver.py"}))

    found = localize(lead, [nodeid], executed, [other], ProjectFiles(tmp_path), tests)

    assert [s.qualname for s in found][:4] == ["test_readonly", "V.__init__", "V.major", "_log"]


def test_a_property_the_failing_test_assigns_is_shown_though_it_never_ran(tmp_path: Path) -> None:
    # semver-d2671fd: `version.build = x` on a property without a setter fails in C; no line of
    # `build` runs, only the fixture's V.__init__. The class that ran names it.
    (tmp_path / "ver.py").write_text(
        "class V:\n    def __init__(self):\n        self._build = 1\n\n"
        "    @property\n    def build(self):\n        return self._build\n\n"
        "    def other(self):\n        return 0\n"
    )
    (tmp_path / "test_ver.py").write_text(
        "from ver import V\n\n\ndef test_readonly():\n    v = V()\n    v.build = 9\n"
    )
    nodeid = "test_ver.py::test_readonly"
    executed = {nodeid: Executed(functions=(("test_ver.py", 4), ("ver.py", 2)))}
    lead = Failure(
        nodeid, "call", "test_ver.py", "Failed", "", "", (Frame("test_ver.py", 6, "test_readonly"),)
    )
    tests = loc.TestFiles(frozenset({"test_ver.py"}))

    found = localize(lead, [nodeid], executed, [], ProjectFiles(tmp_path), tests)

    names = [s.qualname for s in found]
    assert names[:3] == ["test_readonly", "V.build", "V.__init__"]
    assert "V.other" not in names  # not named by the test: the class's data lists it


def test_what_the_function_the_test_calls_calls_follows_it(tmp_path: Path) -> None:
    # boltons-650b09c: the test calls ExceptionInfo.from_current, whose one line calls
    # from_exc_info, where the bug is; the spectrum favours the formatting helpers that ran after.
    (tmp_path / "tb.py").write_text(
        "import sys\n\n\nclass Info:\n    @classmethod\n    def from_current(cls):\n"
        "        return cls.from_exc_info(*sys.exc_info())\n\n"
        "    @classmethod\n    def from_exc_info(cls, t, v, tb):\n        return cls()\n\n"
        "    def fmt(self):\n        s = pad('x')\n        return s\n\n\n"
        "def pad(s):\n    return trim(s)\n\n\ndef trim(s):\n    return s\n"
    )
    (tmp_path / "test_tb.py").write_text(
        "from tb import Info\n\n\n"
        "def test_formatted():\n    assert Info.from_current().fmt() == 'y'\n"
    )
    nodeid = "test_tb.py::test_formatted"
    ran = (("test_tb.py", 4), ("tb.py", 6), ("tb.py", 10), ("tb.py", 13), ("tb.py", 18))
    ran += (("tb.py", 22),)
    # Each passing test ran from_current and from_exc_info; only the failing one ran the rest.
    passing = [f"test_tb.py::test_other_{n}" for n in range(3)]
    executed = {nodeid: Executed(functions=ran)}
    executed |= {test: Executed(functions=ran[1:3]) for test in passing}
    frame = Frame("test_tb.py", 5, "test_formatted")
    lead = Failure(nodeid, "call", "test_tb.py", "AssertionError", "", "", (frame,))

    found = localize(
        lead,
        [nodeid],
        executed,
        passing,
        ProjectFiles(tmp_path),
        loc.TestFiles(frozenset({"test_tb.py"})),
    )

    # The test calls fmt too (only the failing test ran it); fmt's helper pad is not handed
    # over to (fmt has a statement of its own): pad and trim follow by the spectrum.
    assert [s.qualname for s in found] == [
        "test_formatted",
        "Info.fmt",
        "Info.from_current",
        "Info.from_exc_info",
        "pad",
        "trim",
        "Info",
    ]
