"""Kinds of libcst nodes the edit passes (sites.py, families.py) tell apart."""

from __future__ import annotations

import libcst as cst

#: Nodes whose expressions belong to the line they start on (compound statements: the header).
STATEMENTS = (
    cst.SimpleStatementLine,
    cst.SimpleStatementSuite,
    cst.Match,
    cst.MatchCase,
    cst.If,
    cst.While,
    cst.For,
    cst.With,
    cst.ExceptHandler,
)
_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def is_docstring_or_pass(statement: cst.SimpleStatementLine) -> bool:
    small = statement.body[0]
    string = isinstance(small, cst.Expr) and isinstance(small.value, _LITERALS[:2])
    return string or isinstance(small, cst.Pass)


def is_text(node: cst.CSTNode) -> bool:
    """Clearly a string: a literal, or ``+``, ``*`` with one as a side, ``%`` with one left."""
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, (cst.Add, cst.Multiply)):
            return is_text(node.left) or is_text(node.right)
        return isinstance(node.operator, cst.Modulo) and is_text(node.left)
    return isinstance(node, _LITERALS)
