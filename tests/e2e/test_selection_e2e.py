"""What the run did not select still counts: `pytest --heal` under -k, -x, --lf or a node id
verifies every fix against the failing tests' whole modules, and a test's passing sub-cases
(the subtests fixture, unittest's subTest) must keep passing. The user's addopts reach the
verification runs, but for the options that must not repeat there."""

from __future__ import annotations

import pytest
from helpers import heal_args

from pytest_caretaker.testing import ScriptedServer, tool_call

SHAPES = """\
class Rect:
    def __init__(self, w, h):
        self.w, self.h = w, w

    @property
    def area(self):
        return self.w * self.h

    @property
    def perimeter(self):
        return 2 * (self.w + self.h)
"""

TEST_SHAPES = """\
from shapes import Rect


def test_area():
    assert Rect(2, 3).area == 6


def test_perimeter():
    assert Rect(2, 2).perimeter == 8


def test_square_area():
    assert Rect(3, 3).area == 9
"""

#: Makes both area tests pass and breaks test_perimeter, which -k area deselects.
SWAPPED = "def __init__(self, w, h):\n    self.w, self.h = w * h, 1\n"
RIGHT = "def __init__(self, w, h):\n    self.w, self.h = w, h\n"


def edit(code: str) -> list[dict[str, str]]:
    return [{"path": "shapes.py", "function": "Rect.__init__", "code": code}]


@pytest.fixture
def shapes(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(shapes=SHAPES, test_shapes=TEST_SHAPES)
    pytester.makeini("[pytest]\npythonpath = .\n")
    return pytester


@pytest.mark.parametrize(
    "selection",
    [
        ["-k", "area"],
        ["-k", "not perimeter"],
        ["--deselect", "test_shapes.py::test_perimeter"],
        ["test_shapes.py::test_area"],
        ["test_shapes.py::test_area", "test_shapes.py::test_square_area"],
    ],
)
def test_a_fix_that_breaks_a_deselected_test_is_rejected(
    shapes: pytest.Pytester, llm: ScriptedServer, selection: list[str]
) -> None:
    llm.script(tool_call("swap", edit(SWAPPED)), tool_call("w, h", edit(RIGHT)))

    result = shapes.runpytest(*selection, *heal_args(llm))

    result.stdout.fnmatch_lines(
        [
            "HEALED test_shapes.py::test_area",
            "  -        self.w, self.h = w, w",
            "  +        self.w, self.h = w, h",
            "  2 attempts *",
        ]
    )
    assert "fix broke test_shapes.py::test_perimeter" in llm.requests[1]["messages"][-1]["content"]


def test_exitfirst_checks_the_tests_it_did_not_reach(
    shapes: pytest.Pytester, llm: ScriptedServer
) -> None:
    llm.script(tool_call("swap", edit(SWAPPED)), tool_call("w, h", edit(RIGHT)))

    result = shapes.runpytest("-x", *heal_args(llm))

    result.assert_outcomes(failed=1)  # test_perimeter was not reached
    result.stdout.fnmatch_lines(["HEALED test_shapes.py::test_area", "  2 attempts *"])
    assert "fix broke test_shapes.py::test_perimeter" in llm.requests[1]["messages"][-1]["content"]


def test_last_failed_checks_the_tests_that_passed_before(
    shapes: pytest.Pytester, llm: ScriptedServer
) -> None:
    shapes.runpytest()  # the cache learns which test failed
    llm.script(tool_call("swap", edit(SWAPPED)), tool_call("w, h", edit(RIGHT)))

    result = shapes.runpytest("--lf", *heal_args(llm))

    result.assert_outcomes(failed=1)  # pytest collected test_area alone
    result.stdout.fnmatch_lines(["HEALED test_shapes.py::test_area", "  2 attempts *"])
    assert "fix broke test_shapes.py::test_perimeter" in llm.requests[1]["messages"][-1]["content"]


def test_a_deselected_test_that_fails_is_not_kept_passing(
    shapes: pytest.Pytester, llm: ScriptedServer
) -> None:
    # Its status is learnt in the baseline: one that fails already is no evidence against a fix.
    shapes.makepyfile(
        test_more="""
        from shapes import Rect

        def test_odd():
            assert Rect(1, 2).h == 3
        """
    )
    shapes.path.joinpath("test_shapes.py").write_text(
        TEST_SHAPES + "\n\ndef test_broken():\n    assert Rect(1, 2).w == 7\n"
    )
    llm.script(tool_call("w, h", edit(RIGHT)))

    result = shapes.runpytest("-k", "area", *heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_shapes.py::test_area", "  1 attempt *"])


PARITY = """\
def is_odd(n):
    return n % 2 == 1 and n > 1
"""

#: Heals the failing sub-case (n=1) and breaks the passing ones (n=3, n=4).
INVERTED = "def is_odd(n):\n    return n == 1 or n % 2 != 1\n"
PARITY_RIGHT = "def is_odd(n):\n    return n % 2 == 1\n"


def parity_edit(code: str) -> list[dict[str, str]]:
    return [{"path": "parity.py", "function": "is_odd", "code": code}]


SUBTESTS = """\
from parity import is_odd


def test_odd(subtests):
    for n, odd in [(1, True), (3, True), (4, False)]:
        with subtests.test(n=n):
            assert is_odd(n) == odd
"""

SUBTEST_CASES = """\
import unittest

from parity import is_odd


class TestParity(unittest.TestCase):
    def test_odd(self):
        for n, odd in [(1, True), (3, True), (4, False)]:
            with self.subTest(n=n):
                self.assertEqual(is_odd(n), odd)
"""


@pytest.mark.parametrize(
    ("source", "nodeid"),
    [
        (SUBTESTS, "test_parity.py::test_odd"),
        (SUBTEST_CASES, "test_parity.py::TestParity::test_odd"),
    ],
    ids=["subtests", "subTest"],
)
def test_a_fix_that_breaks_a_passing_sub_case_is_rejected(
    pytester: pytest.Pytester, llm: ScriptedServer, source: str, nodeid: str
) -> None:
    pytester.makepyfile(parity=PARITY, test_parity=source)
    pytester.makeini("[pytest]\npythonpath = .\n")
    llm.script(
        tool_call("invert", parity_edit(INVERTED)), tool_call("n > 1", parity_edit(PARITY_RIGHT))
    )

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines([f"HEALED {nodeid}", "  +    return n % 2 == 1", "  2 attempts *"])
    retry = llm.requests[1]["messages"][-1]["content"]
    assert f"rejected: {nodeid} still fails" in retry


UNITS_CONFTEST = """\
import pytest


def pytest_addoption(parser):
    parser.addoption("--units", default="imperial")


@pytest.fixture
def units(request):
    return request.config.getoption("units")
"""

LENGTH = """\
def length(cm, units):
    if units == "metric":
        return cm / 10
    return cm / 2.54
"""

TEST_LENGTH = """\
from length import length


def test_metres(units):
    assert units == "metric"
    assert length(250, units) == 2.5


def test_zero(units):
    assert units == "metric"
    assert length(0, units) == 0
"""


@pytest.mark.parametrize("where", ["ini", "env"])
def test_an_option_the_tests_need_reaches_verification(
    pytester: pytest.Pytester,
    llm: ScriptedServer,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    # The plugin option --units (a separate value) and options that must not repeat there.
    addopts = "--units metric -n 0 --maxfail 5 -k 'metres or zero' tests_dir"
    pytester.makeconftest(UNITS_CONFTEST)
    pytester.makepyfile(length=LENGTH, test_length=TEST_LENGTH)
    if where == "ini":
        pytester.makeini(f"[pytest]\npythonpath = .\naddopts = {addopts}\n")
    else:
        pytester.makeini("[pytest]\npythonpath = .\n")
        monkeypatch.setenv("PYTEST_ADDOPTS", addopts)
    pytester.mkdir("tests_dir")  # a path in addopts: the run collects it, verification does not
    fix = LENGTH.replace("cm / 10\n", "cm / 100\n")
    llm.script(tool_call("metres", [{"path": "length.py", "function": "length", "code": fix}]))

    result = pytester.runpytest("test_length.py", *heal_args(llm))

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["HEALED test_length.py::test_metres", "  1 attempt *"])


def test_a_doctest_that_needs_what_the_tests_before_it_left_is_healed_by_the_patch(
    pytester: pytest.Pytester,
) -> None:
    # A common layout (semver's): the docs' doctests run after the tests, in a namespace an
    # autouse fixture of tests/conftest.py fills. Alone, the doctest fails at its first line, so
    # its own repair finds no code under test; under the patch, run where the session ran it,
    # it passes: it is healed, not "NOT HEALED" beside a patch that heals it (#21 item 8).
    pytester.makeini(
        "[pytest]\npythonpath = src\ntestpaths = tests docs\naddopts = --doctest-glob=*.rst\n"
    )
    pytester.mkdir("src")
    pytester.path.joinpath("src", "shapes.py").write_text(
        "def area(w, h):\n    return w * w\n", encoding="utf-8"
    )
    tests = pytester.mkdir("tests")
    tests.joinpath("conftest.py").write_text(
        "import pytest\nimport shapes\n\n\n@pytest.fixture(autouse=True)\n"
        "def add_shapes(doctest_namespace):\n    doctest_namespace['area'] = shapes.area\n",
        encoding="utf-8",
    )
    tests.joinpath("test_shapes.py").write_text(
        "from shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"
        "    assert area(4, 1) == 4\n",
        encoding="utf-8",
    )
    pytester.mkdir("docs").joinpath("usage.rst").write_text(
        "Usage\n=====\n\n>>> area(2, 5)\n10\n", encoding="utf-8"
    )

    result = pytester.runpytest("--heal", "-p", "no:cacheprovider")

    result.stdout.fnmatch_lines(
        ["HEALED docs/usage.rst::usage.rst", "HEALED tests/test_shapes.py::test_area"]
    )
    result.stdout.fnmatch_lines(["caretaker: 2 healed, 0 not healed *"])
