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
    assert reason is not None and "doctest examples in the docstring of calc.py::halve" in reason
    dropped = HALVE.replace("    >>> halve(10)\n    5\n", "")
    assert rewritten("calc.py::halve", HALVE, dropped) is not None
