"""Grouping: parentheses where a new node would otherwise group differently, and nowhere else."""

from __future__ import annotations

import libcst as cst
import pytest

from pytest_caretaker.builtin.grouping import (
    PRECEDENCE,
    additive_safe,
    as_operand,
    atomic,
    parenthesized,
)


def code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a", "a"),
        ("a.b", "a.b"),
        ("f(a)", "f(a)"),
        ("xs[0]", "xs[0]"),
        ("[a, b]", "[a, b]"),
        ("(a + b)", "(a + b)"),
        ("a + b", "(a + b)"),
        ("-a", "(-a)"),
        ("not a", "(not a)"),
        ("a if b else c", "(a if b else c)"),
        ("a and b", "(a and b)"),
        ("lambda: a", "(lambda: a)"),
    ],
)
def test_atomic(before: str, after: str) -> None:
    assert code(atomic(cst.parse_expression(before))) == after


@pytest.mark.parametrize(
    ("child", "operator", "right", "after"),
    [
        ("a + b", cst.Multiply, False, "(a + b)"),
        ("a * b", cst.Add, False, "a * b"),
        ("a - b", cst.Subtract, False, "a - b"),
        ("a - b", cst.Subtract, True, "(a - b)"),
        ("(a + b)", cst.Multiply, False, "(a + b)"),
        ("f(a)", cst.Power, True, "f(a)"),
    ],
)
def test_as_operand(child: str, operator: type[cst.BaseBinaryOp], right: bool, after: str) -> None:
    new = as_operand(cst.parse_expression(child), PRECEDENCE[operator], right=right)
    assert code(new) == after


@pytest.mark.parametrize(
    ("node", "safe"),
    [
        ("a", True),
        ("a * b", True),
        ("a - b", True),
        ("a | b", False),
        ("-a", True),
        ("not a", False),
        ("a if b else c", False),
        ("a < b", False),
    ],
)
def test_additive_safe(node: str, safe: bool) -> None:
    assert additive_safe(cst.parse_expression(node)) is safe


def test_parenthesized() -> None:
    assert code(parenthesized(cst.parse_expression("a + b"))) == "(a + b)"
