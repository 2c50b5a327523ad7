"""A fix of code under test may not rewrite its doctest (guard/doctests.py)."""

from __future__ import annotations

from pytest_caretaker.guard.doctests import examples, rewritten

HALVE = '''\
def halve(n):
    """Half of n.

    >>> halve(10)
    5
    """
    return n // 3
'''


def test_the_examples_of_a_docstring_are_read() -> None:
    assert examples(HALVE) == (("halve(10)\n", "5\n"),)
    assert examples("def f():\n    '''No examples.'''\n") == ()
    assert examples("def f(:\n") == ()  # not Python: nothing to compare


def test_fixing_the_code_keeps_the_doctest_and_passes() -> None:
    fixed = HALVE.replace("n // 3", "n // 2").replace("Half of n.", "Half of n, rounded down.")
    assert rewritten("calc.py::halve", HALVE, fixed) is None


def test_rewriting_what_the_doctest_expects_is_refused() -> None:
    weakened = HALVE.replace("    5\n", "    3\n")
    reason = rewritten("calc.py::halve", HALVE, weakened)
    assert reason is not None and "what the doctest example `halve(10)` in calc.py::halve" in reason
    dropped = HALVE.replace("    >>> halve(10)\n    5\n", "")
    assert rewritten("calc.py::halve", HALVE, dropped) is not None


MODULE = (
    HALVE
    + '''
"""Examples:

>>> halve(4)
2
"""
'''
)


def test_examples_moved_into_the_docstring_unchanged_are_allowed() -> None:
    # Models move a file's trailing examples into the fixed function's docstring (#34).
    moved = HALVE.replace("n // 3", "n // 2").replace("    5\n", "    5\n    >>> halve(4)\n    2\n")
    assert rewritten("calc.py::halve", HALVE, moved, MODULE) is None


def test_examples_added_to_the_docstring_are_allowed() -> None:
    added = HALVE.replace("n // 3", "n // 2").replace("    5\n", "    5\n    >>> halve(0)\n    0\n")
    assert rewritten("calc.py::halve", HALVE, added) is None


def test_an_example_moved_with_another_expected_value_is_refused() -> None:
    moved = HALVE.replace("    5\n", "    5\n    >>> halve(4)\n    1\n")
    reason = rewritten("calc.py::halve", HALVE, moved, MODULE)
    assert reason is not None and "`halve(4)`" in reason


def test_a_docstring_gaining_its_first_examples_is_allowed() -> None:
    bare = "def halve(n):\n    return n // 3\n"
    documented = HALVE.replace("n // 3", "n // 2")
    assert rewritten("calc.py::halve", bare, documented) is None


def test_a_doctest_no_failing_test_runs_may_change_with_the_fix_and_is_said() -> None:
    from pytest_caretaker.guard.failing import Failing
    from pytest_caretaker.guard.weakening import review
    from pytest_caretaker.project.files import TestFiles
    from pytest_caretaker.results import Edit

    # The docstring documented the old behaviour (n // 3 of 10 is 3); the fix brings it along.
    buggy = HALVE.replace("    5\n", "    3\n")
    edit = Edit("replace", "calc.py", "halve", HALVE.replace("n // 3", "n // 2"))
    tests = TestFiles(frozenset({"test_calc.py"}))

    def reviewed(failing: Failing) -> tuple[str | None, tuple[str, ...]]:
        found = review([edit], tests, lambda _: buggy, failing=failing)
        return found.refused, found.notices

    refused, notices = reviewed(Failing(paths=frozenset({"test_calc.py"})))
    assert refused is None
    assert notices == (
        "updates the doctest of calc.py::halve: changes what the doctest example `halve(10)` "
        "in calc.py::halve expects",
    )
    # The failing test is that doctest (its module is the failing file), or nothing is known.
    assert "a doctest is a test" in str(reviewed(Failing(paths=frozenset({"calc.py"})))[0])
    assert "a doctest is a test" in str(reviewed(Failing())[0])
