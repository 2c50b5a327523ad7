"""Shapes: edit families that change how an expression is put together, not one of its tokens.

Each is a small transform of one node into (new node, prior) pairs, as operators.py's are, with
priors below the common one-token families (a boundary comparison, an off-by-one) so that the
ranking still tries those first:

- ``concat_swap``: the operands of a string concatenation (``"x" + name`` -> ``name + "x"``);
- ``method_pair``: a method for its natural opposite (``startswith`` -> ``endswith``);
- ``branches_swapped``: the two values of a conditional expression (``a if c else b`` ->
  ``b if c else a``, as good as ``not c`` where ``c`` is a bare flag), a ``swap``;
- ``negated``: a guard's bare condition negated (``if prices:`` -> ``if not prices:``), a
  ``boolean`` edit (a comparison's negation is the comparison family's, a dropped ``not`` the
  boolean one's); an inverted guard is healed by its condition, never by emptying its body;
- ``regroup``: parentheses that Python's precedence left out (``a - b * c`` -> ``(a - b) * c``,
  ``a - b + c`` -> ``a - (b + c)``, ``not a == b`` -> ``(not a) == b``).

Where an expression is replaced by a variable in scope, or by a copy of another expression of
the function, the whole function must be seen first: families.py does that.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from pytest_caretaker.builtin.grouping import PRECEDENCE, as_operand, parenthesized
from pytest_caretaker.builtin.operators import NodeEdit

_TEXT = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


def _is_text(node: cst.BaseExpression) -> bool:
    return isinstance(node, _TEXT) and not (
        isinstance(node, cst.SimpleString) and node.prefix.lower().startswith("b")
    )


def concat_swap(node: cst.BinaryOperation) -> Iterator[NodeEdit]:
    """``a + "x"`` -> ``"x" + a``; in a chain, the text and its neighbour (``p + "x" + q``)."""
    if not isinstance(node.operator, cst.Add):
        return
    precedence = PRECEDENCE[cst.Add]
    if _is_text(node.left) or _is_text(node.right):
        yield (
            node.with_changes(left=node.right, right=as_operand(node.left, precedence, right=True)),
            0.5,
        )
    inner = node.left
    if (
        isinstance(inner, cst.BinaryOperation)
        and isinstance(inner.operator, cst.Add)
        and not inner.lpar
        and (_is_text(inner.right) or _is_text(node.right))
    ):
        yield (
            node.with_changes(
                left=inner.with_changes(right=node.right),
                right=as_operand(inner.right, precedence, right=True),
            ),
            0.5,
        )


def operands_swapped(node: cst.BinaryOperation) -> Iterator[NodeEdit]:
    """``a + b`` -> ``b + a`` for any operands: the reverse of a concatenation of names."""
    if isinstance(node.operator, cst.Add) and not (_is_text(node.left) or _is_text(node.right)):
        precedence = PRECEDENCE[cst.Add]
        yield (
            node.with_changes(left=node.right, right=as_operand(node.left, precedence, right=True)),
            0.5,
        )


#: Methods that are each other's natural opposite: one written for the other is a common slip.
_METHOD_PAIRS = {
    "startswith": "endswith",
    "lower": "upper",
    "lstrip": "rstrip",
    "ljust": "rjust",
    "floor": "ceil",
    "keys": "values",
    "find": "rfind",
    "index": "rindex",
    "removeprefix": "removesuffix",
}
_METHOD_PAIRS.update({new: old for old, new in _METHOD_PAIRS.items()})


def branches_swapped(node: cst.IfExp) -> Iterator[NodeEdit]:
    """``a if c else b`` -> ``b if c else a``."""
    if not node.body.deep_equals(node.orelse):
        yield node.with_changes(body=node.orelse, orelse=node.body), 0.6


def method_pair(node: cst.Attribute) -> Iterator[NodeEdit]:
    """``s.startswith(x)`` -> ``s.endswith(x)``, ``math.floor`` -> ``math.ceil`` and the like."""
    other = _METHOD_PAIRS.get(node.attr.value)
    if other is not None:
        yield node.with_changes(attr=node.attr.with_changes(value=other)), 0.6


#: Operators for which ``a op (b op2 c)`` differs from ``(a op b) op2 c`` at the same precedence.
_NOT_ASSOCIATIVE = (cst.Subtract, cst.Divide, cst.FloorDivide, cst.Modulo)


def _precedence(node: cst.BaseExpression) -> int:
    if isinstance(node, cst.BinaryOperation) and not node.lpar:
        return PRECEDENCE.get(type(node.operator), 0)
    return 99  # an atom, or a group already parenthesized: never regrouped


def _into_leftmost(
    left: cst.BaseExpression, operator: cst.BaseBinaryOp, right: cst.BaseExpression, level: int
) -> cst.BaseExpression:
    """``left operator right`` with ``left operator`` taken into right's leftmost operand."""
    if isinstance(right, cst.BinaryOperation) and level < _precedence(right) < 99:
        return right.with_changes(left=_into_leftmost(left, operator, right.left, level))
    return parenthesized(cst.BinaryOperation(left=left, operator=operator, right=right))


def regroup(node: cst.BinaryOperation | cst.UnaryOperation) -> Iterator[NodeEdit]:
    """Parentheses where precedence grouped otherwise: each a way the author may have meant it."""
    if isinstance(node, cst.UnaryOperation):
        inner = node.expression
        negated = isinstance(node.operator, cst.Not) and not node.lpar
        if negated and isinstance(inner, cst.Comparison) and not inner.lpar:
            left = parenthesized(node.with_changes(expression=inner.left))
            yield inner.with_changes(left=left), 0.2
        return
    level = PRECEDENCE.get(type(node.operator), 0)
    right, left = node.right, node.left
    if level < _precedence(right) < 99:  # a - b * c -> (a - b) * c
        yield _into_leftmost(left, node.operator, right, level), 0.35
    if level < _precedence(left) < 99 and isinstance(left, cst.BinaryOperation):
        # a * b + c -> a * (b + c)
        tail = parenthesized(node.with_changes(left=left.right))
        yield left.with_changes(right=tail), 0.35
    if (
        isinstance(left, cst.BinaryOperation)
        and _precedence(left) == level
        and isinstance(left.operator, _NOT_ASSOCIATIVE)
    ):  # a - b + c -> a - (b + c)
        tail = parenthesized(node.with_changes(left=left.right))
        yield left.with_changes(right=tail), 0.35


def negated(test: cst.BaseExpression) -> Iterator[NodeEdit]:
    """``if flag:`` -> ``if not flag:``, where the condition is a name, an attribute, a call or
    a subscript."""
    if isinstance(test, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        yield cst.UnaryOperation(operator=cst.Not(), expression=test), 0.5
