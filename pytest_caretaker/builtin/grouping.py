"""Grouping: where a new node needs parentheses so that it groups as the node it replaces did.

An operator swap can change how Python groups an expression (``a + b`` -> ``a * b`` inside
``x - a + b``), and an operand moved or taken out of its operator can land next to one that binds
tighter. The operators (operators.py) and the text edits (edits.py) ask here, so that every
mutant means what its description says, and parentheses are added only where they are needed.
"""

from __future__ import annotations

import libcst as cst

#: How tightly each binary operator binds, as in Python's grammar (higher binds tighter).
PRECEDENCE: dict[type[cst.BaseBinaryOp], int] = {
    cst.BitOr: 1,
    cst.BitXor: 2,
    cst.BitAnd: 3,
    cst.LeftShift: 4,
    cst.RightShift: 4,
    cst.Add: 5,
    cst.Subtract: 5,
    cst.Multiply: 6,
    cst.Divide: 6,
    cst.FloorDivide: 6,
    cst.Modulo: 6,
    cst.MatrixMultiply: 6,
    cst.Power: 8,
}

#: Expressions that bind tighter than any operator they may land next to.
_ATOMS = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.List,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
)


def atomic(node: cst.BaseExpression) -> cst.BaseExpression:
    """The node, parenthesized unless it binds tighter than any operator it may land next to."""
    if node.lpar or isinstance(node, _ATOMS):
        return node
    return parenthesized(node)


def as_operand(child: cst.BaseExpression, precedence: int, right: bool) -> cst.BaseExpression:
    """child as an operand of an operator of this precedence: parenthesized if it would regroup."""
    if isinstance(child, cst.BinaryOperation) and not child.lpar:
        inner = PRECEDENCE.get(type(child.operator), 0)
        if inner < precedence or (right and inner == precedence):
            return parenthesized(child)
    return child


def additive_safe(node: cst.BaseExpression) -> bool:
    """Whether ``node + 1`` means ``(node) + 1`` without parentheses."""
    if isinstance(node, cst.BinaryOperation):
        return PRECEDENCE.get(type(node.operator), 0) >= PRECEDENCE[cst.Add]
    if isinstance(node, cst.UnaryOperation):
        return not isinstance(node.operator, cst.Not)
    return atomic(node) is node


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
