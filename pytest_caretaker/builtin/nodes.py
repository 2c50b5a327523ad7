"""Kinds of libcst nodes the edit passes (sites.py, families.py) tell apart, and how many of a
function's names or statements one place may take."""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

#: The most other variables one name may become, and statements copied to one place: the nearest
#: (by line). Every one in a function of ordinary size; in a 700-line function, all of them would
#: make the candidates grow as the square of its length.
NEAR = 24

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


def nearest(lines: Mapping[str, int], line: int) -> list[str]:
    """The NEAR keys of lines (each the line it is at) nearest line, in the order of lines."""
    if len(lines) <= NEAR:
        return list(lines)
    near = set(sorted(lines, key=lambda key: abs(lines[key] - line))[:NEAR])
    return [key for key in lines if key in near]
