"""Evidence (evidence.py): what an assertion or an exception says of the fix, as weights; and
the probes of overfit.py that refuse a fix raising into its own fallback or skipping the line
that raised."""

from __future__ import annotations

import textwrap

import pytest

from pytest_caretaker.builtin import evidence, overfit
from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.results import Candidate, Edit, Failure, FileChange, Frame
from pytest_caretaker.verify.trials import Trial


@pytest.mark.parametrize(
    ("actual", "expected", "signs"),
    [
        ("F1", "1F", ["reversed"]),
        ([1, 2, 3], [1, 2], ["length"]),
        (6, 5, ["off_by_one"]),
        (-3, 3, ["sign"]),
        (0.02, 0.2, ["magnitude"]),
        (500, 50, ["magnitude"]),
        ((1, 2, 3), (1, 3, 2), ["swapped"]),
        (None, 3, ["none"]),
        ("abc", "abd", []),
        (True, False, []),
    ],
)
def test_relations(actual: object, expected: object, signs: list[str]) -> None:
    assert evidence.relations(actual, expected) == signs


def failure(
    message: str, exc_type: str = "AssertionError", frames: tuple[Frame, ...] = ()
) -> Failure:
    return Failure("t.py::test", "call", "t.py", exc_type, message, "", frames)


def mutant(operator: str, line: int = 5, needs: str = "") -> Mutant:
    return Mutant("lib.py", "f", line, operator, "", 0.5, 0, 0, "", needs=needs)


def test_a_reversed_result_puts_the_operand_swaps_first() -> None:
    told = evidence.read([failure("assert 'F1' == '1F'\n  \n  - 1F\n  + F1")])
    assert told.signs == ("reversed",)
    assert told.weight(mutant("concat_swap")) > told.weight(mutant("comparison")) == 1.0


def test_an_edit_that_needs_a_sign_is_left_out_without_it() -> None:
    assert (
        evidence.read([failure("assert 3 == 4")]).weight(mutant("concat_swap", needs="reversed"))
        == 0
    )
    told = evidence.read([failure("assert 'ab' == 'ba'")])
    assert told.weight(mutant("concat_swap", needs="reversed")) > 0


def test_an_exception_names_its_families_and_its_line() -> None:
    frames = (Frame("t.py", 3, "test"), Frame("lib.py", 5, "f"))
    told = evidence.read([failure("'quantity'", "KeyError", frames)])
    assert told.raised == ("lib.py", 5)
    assert told.weight(mutant("key")) == 4.0 * evidence.RAISING_LINE
    assert told.weight(mutant("key", line=6)) == 4.0
    assert told.weight(mutant("delete", line=6)) == 1.0


def test_a_sign_counts_when_half_the_cases_show_it() -> None:
    cases = [failure("assert 'ab' == 'ba'"), failure("assert 'x' == 'y'"), failure("assert 1 == 2")]
    assert "reversed" not in evidence.read(cases).signs
    assert "reversed" in evidence.read(cases[:2]).signs


SEARCH = """\
def find(items, value):
    low, high = 0, len(items) - 1
    while low <= high:
        middle = (low + high) // 2
        if items[middle] == value:
            return middle
        if items[middle] < value:
            low = middle
        else:
            high = middle - 1
    return -1
"""


def test_a_timeout_names_the_loop_its_condition_and_updates() -> None:
    frames = (Frame("t.py", 3, "test"), Frame("lib.py", 4, "find"))
    timeout = failure("Timeout (>1.0s) from pytest-timeout.", "Failed", frames)
    told = evidence.read([timeout], (), lambda path: SEARCH if path == "lib.py" else None)
    assert told.signs == ("timeout",)
    assert told.loop == {("lib.py", 3), ("lib.py", 8), ("lib.py", 10)}
    # `low = middle` -> `low = middle + 1` on an update, ahead of `// 2` -> `// 1` elsewhere.
    update, elsewhere = told.weight(mutant("off_by_one", 8)), told.weight(mutant("constant", 4))
    assert update == 2.5 * evidence.LOOP_LINE
    assert elsewhere == 1.5 * evidence.RAISING_LINE
    assert update > elsewhere
    # Without the file's text the sign still counts; an ordinary failure names no loop.
    assert evidence.read([timeout]).loop == frozenset()
    assert evidence.read([failure("assert 1 == 2")], (), lambda path: SEARCH).loop == frozenset()


def test_loop_lines_of_a_for_loop_and_of_code_that_does_not_parse() -> None:
    growing = "def f(items):\n    for item in items:\n        items = items + [item]\n"
    assert evidence.loop_lines("m.py", 3, growing) == {("m.py", 2), ("m.py", 3)}
    assert evidence.loop_lines("m.py", 1, growing) == frozenset()
    assert evidence.loop_lines("m.py", 2, "def (:") == frozenset()


# -- overfit.py ------------------------------------------------------------------------------------

PARSE = """\
def parse_percent(text):
    try:
        value = float(text.rstrip("%"))
        return value / 100
    except ValueError:
        return None
"""


def candidate(before: str, after: str, qualname: str = "parse_percent") -> Candidate:
    change = FileChange("lib.py", before.encode(), after.encode())
    return Candidate((Edit("replace", "lib.py", qualname, ""),), (change,))


def fake_probe(raises: set[str], reaches: bool = True) -> overfit.Probe:
    """A probe that says the wrapped statement raised when its text holds one of raises."""

    def probe(path: str, qualname: str, line: int, text: str) -> Trial:
        assert compile(text, path, "exec")
        if "except BaseException" in text:
            wrapped = text.split("try:\n", 2)[-1].split("except BaseException", 1)[0]
            if any(needle in wrapped for needle in raises):
                return Trial(False, f"the test process exited with code {overfit.RAISED} before")
            return Trial(False, "t.py::test failed")
        if reaches:
            return Trial(False, f"the test process exited with code {overfit.REACHED} before")
        return Trial(True)

    return probe


def test_a_fix_that_raises_into_its_own_fallback_is_refused() -> None:
    after = PARSE.replace("rstrip", "lstrip")
    found = overfit.examine(candidate(PARSE, after), fake_probe({"lstrip"}), None)
    assert "raises on the failing case, where the original did not" in found.refused


def test_a_fix_whose_original_raised_there_too_is_not_refused() -> None:
    after = PARSE.replace("rstrip", "lstrip")
    found = overfit.examine(candidate(PARSE, after), fake_probe({"strip"}), None)
    assert found == overfit.Finding()


def test_a_fix_that_skips_the_line_that_raised_is_marked() -> None:
    before = textwrap.dedent(
        """\
        def fmt(spec):
            if not spec:
                return ""
            return spec["name"]
        """
    )
    after = before.replace("if not spec", "if spec")
    found = overfit.examine(
        candidate(before, after, "fmt"), fake_probe(set(), False), ("lib.py", 4)
    )
    assert found.skipped == "line 4, which raised, is no longer reached"
    reached = overfit.examine(candidate(before, after, "fmt"), fake_probe(set()), ("lib.py", 4))
    assert reached == overfit.Finding()
