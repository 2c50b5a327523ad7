"""Checks: an assert paired with its replacement is refused when it demands less, else noticed."""

from __future__ import annotations

import ast

import pytest

from pytest_caretaker.guard.checks import checks


def function_of(*asserts: str) -> ast.FunctionDef:
    body = "".join(f"    {line}\n" for line in asserts)
    function = ast.parse(f"def test_it():\n{body}").body[0]
    assert isinstance(function, ast.FunctionDef)
    return function


def judge(before: list[str], after: list[str]) -> tuple[str | None, list[str]]:
    notices: list[str] = []
    reason = checks("t", function_of(*before), function_of(*after), notices)
    return reason, notices


@pytest.mark.parametrize(
    ("before", "after", "reason"),
    [
        ("assert x == 1", "assert True", "turns the check `x == 1` into `True`, which cannot fail"),
        ("assert x == 1", "assert x == 1 or True", "which cannot fail"),
        ("assert f(x) == 1", "assert (f(x), 1)", "which cannot fail"),
        ("self.assertEqual(a, b)", "self.assertEqual(a, a)", "which cannot fail"),
        ("assert x == 1", "assert x == 1 or x == 2", "loosens `x == 1` to `x == 1 or x == 2`"),
        ("assert x or y", "assert x or y or z", "which accepts more outcomes"),
        ("assert x and y", "assert x", "drops a condition: `x and y` becomes `x`"),
        ("assert x and y and z", "assert x and y", "drops a condition"),
        ("assert x == []", "assert x", "replaces the comparison `x == []` with the weaker `x`"),
        ("assert 0 < x < 9", "assert 0 < x", "drops a comparison: `0 < x < 9` becomes `0 < x`"),
        ("assert x == 1", "assert x >= 1", "weakens `x == 1` to `x >= 1`"),
        ("assert x is None", "assert x is not None", "weakens `x is None`"),
        ("self.assertEqual(a, b)", "self.assertIn(a, b)", "replaces `self.assertEqual(a, b)` with"),
        ("assert_equal(a, b, 'm')", "assert_equal(a, b)", "drops an argument"),
        ("assert f(x) == 1", "assert_true(f(x))", "replaces the comparison"),
        (
            "assert x == 1",
            "if x:\n        assert x == 1",
            "makes the check `x == 1` of t conditional",
        ),
        (
            "assert x == 1",
            "if x:\n        assert x == 2",
            "makes the check `x == 1` of t conditional",
        ),
        ("assert x == 1", "pass", "removes the check `x == 1` from t; every check must stay"),
        ("assert f() == 6", "assert (m := f()) == m", "into `(m := f()) == m`, which cannot fail"),
        ("assert a == b", "assert bool(a) == bool(b)", "compares bool(a) where it compared a"),
        ("assert a == [1]", "assert len(a) == len([1])", "len() tells fewer values apart"),
        ("assert s(a) == [1, 2]", "assert s(a) == s([2, 1])", "the code under test with itself"),
    ],
)
def test_a_check_that_demands_less_is_refused(before: str, after: str, reason: str) -> None:
    refused, _ = judge([before], [after])
    assert refused is not None
    assert reason in refused
    assert refused.startswith("the fix ")


@pytest.mark.parametrize(
    ("before", "after", "notice"),
    [
        ("assert x == 1", "assert x == 2", "changes what t checks: `x == 1` → `x == 2`"),
        ("assert x >= 1", "assert x == 1", "changes what t checks: `x >= 1` → `x == 1`"),
        ("assert x == 1", "assert y(x) == 1", "changes what t checks: `x == 1` → `y(x) == 1`"),
        ("assert x", "assert x and y", "changes what t checks: `x` → `x and y`"),
        (
            "assert x == 1",
            "assert x == 1 and y",
            "changes what t checks: `x == 1` → `x == 1 and y`",
        ),
        (
            "assert f(a) == f(b)",
            "assert f(a) == f(c)",
            "changes what t checks: `f(a) == f(b)` → `f(a) == f(c)`",
        ),
    ],
)
def test_a_check_that_expects_something_else_is_noticed(
    before: str, after: str, notice: str
) -> None:
    assert judge([before], [after]) == (None, [notice])


def test_checks_are_paired_by_structure_before_position() -> None:
    before = ["assert a == 1", "assert b == 2"]
    assert judge(before, list(reversed(before))) == (None, [])
    refused, _ = judge(before, ["assert b == 2", "assert a >= 1"])
    assert refused is not None
    assert "weakens `a == 1` to `a >= 1`" in refused


def test_added_checks_are_not_noticed() -> None:
    assert judge(["assert a == 1"], ["assert a == 1", "assert b == 2"]) == (None, [])
