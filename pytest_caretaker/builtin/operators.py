"""The built-in repairer's edit operators: each a small libcst transform of one kind of node.

An operator takes a node and yields (new node, prior) pairs: the node that would replace it, and
how often an edit of this kind is the fix, relatively (the most common one-token bugs of real
projects, a boundary comparison or an off-by-one, highest; see sites.py for where they apply).
New nodes keep the spacing of the old ones, and get parentheses (grouping.py) where their
operators would otherwise group differently from the node they replace.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from pytest_caretaker.builtin.grouping import (
    PRECEDENCE,
    additive_safe,
    as_operand,
    atomic,
    parenthesized,
)

OPERATORS = (
    "comparison",
    "arithmetic",
    "boolean",
    "constant",
    "off_by_one",
    "variable",  # a local or parameter for another; an attribute of the same object too
    "swap",
    "unwrap",
    "builtin_pair",
    "delete",
    "insert",
    # families.py and shapes.py; literals.py and reach.py
    "to_variable",  # an expression for a variable bound earlier
    "copy",  # an expression for another of the same kind from elsewhere in the function
    "concat_swap",  # the operands of a string concatenation
    "precedence",  # parentheses precedence left out
    "magnitude",  # a number off by a power of ten
    "attribute",  # obj.attr for another attribute named in the module or the failure's objects
    "key",  # a dict's string key for another key seen in the module or the failure's dicts
)

#: What an operator proposes: the node that would replace the one it was given, and its prior.
NodeEdit = tuple[cst.CSTNode, float]

_COMPARISONS: dict[type[cst.BaseCompOp], str] = {
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}
_BOUNDARY = {("<", "<="), ("<=", "<"), (">", ">="), (">=", ">")}
_NEGATION = {("==", "!="), ("!=", "=="), ("<", ">="), (">=", "<"), (">", "<="), ("<=", ">")}
_PAIRED_COMPARISONS: dict[type[cst.BaseCompOp], type[cst.BaseCompOp]] = {
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
}


def comparison(node: cst.Comparison) -> Iterator[NodeEdit]:
    """Swap one comparison operator: the boundary (< <=) first, then negation, then the rest."""
    for index, target in enumerate(node.comparisons):
        kind = type(target.operator)
        alternatives: list[tuple[cst.BaseCompOp, float]] = []
        if kind in _PAIRED_COMPARISONS:
            alternatives.append((_PAIRED_COMPARISONS[kind](), 0.8))
        elif kind in _COMPARISONS:
            old = _COMPARISONS[kind]
            for new_kind, new in _COMPARISONS.items():
                if new_kind is kind:
                    continue
                prior = 1.0 if (old, new) in _BOUNDARY else 0.8 if (old, new) in _NEGATION else 0.5
                alternatives.append((new_kind(), prior))
        for operator, prior in alternatives:
            operator = operator.with_changes(  # keep the spacing around the operator
                whitespace_before=target.operator.whitespace_before,  # type: ignore[attr-defined]
                whitespace_after=target.operator.whitespace_after,  # type: ignore[attr-defined]
            )
            targets = list(node.comparisons)
            targets[index] = target.with_changes(operator=operator)
            yield node.with_changes(comparisons=targets), prior


_ARITHMETIC: dict[type[cst.BaseBinaryOp], tuple[type[cst.BaseBinaryOp], ...]] = {
    cst.Add: (cst.Subtract, cst.Multiply),
    cst.Subtract: (cst.Add,),
    cst.Multiply: (cst.Divide, cst.FloorDivide, cst.Add),
    cst.Divide: (cst.FloorDivide, cst.Multiply),
    cst.FloorDivide: (cst.Divide, cst.Modulo, cst.Multiply),
    cst.Modulo: (cst.FloorDivide,),
    cst.Power: (cst.Multiply,),
    cst.BitAnd: (cst.BitOr, cst.BitXor),
    cst.BitOr: (cst.BitAnd, cst.BitXor),
    cst.BitXor: (cst.BitOr, cst.BitAnd),
    cst.LeftShift: (cst.RightShift,),
    cst.RightShift: (cst.LeftShift,),
}
_AUGMENTED_FORM: dict[type[cst.BaseBinaryOp], type[cst.BaseAugOp]] = {
    cst.Add: cst.AddAssign,
    cst.Subtract: cst.SubtractAssign,
    cst.Multiply: cst.MultiplyAssign,
    cst.Divide: cst.DivideAssign,
    cst.FloorDivide: cst.FloorDivideAssign,
    cst.Modulo: cst.ModuloAssign,
    cst.Power: cst.PowerAssign,
    cst.BitAnd: cst.BitAndAssign,
    cst.BitOr: cst.BitOrAssign,
    cst.BitXor: cst.BitXorAssign,
    cst.LeftShift: cst.LeftShiftAssign,
    cst.RightShift: cst.RightShiftAssign,
}
#: The same swaps for augmented assignments (``+=`` -> ``-=``), derived so the two never differ.
_AUGMENTED: dict[type[cst.BaseAugOp], tuple[type[cst.BaseAugOp], ...]] = {
    _AUGMENTED_FORM[old]: tuple(_AUGMENTED_FORM[new] for new in alternatives)
    for old, alternatives in _ARITHMETIC.items()
}


def arithmetic(node: cst.BinaryOperation | cst.AugAssign) -> Iterator[NodeEdit]:
    """Swap an arithmetic or bitwise operator (+ -, * / //, & | ^, << >>), augmented ones too."""
    spacing = {
        "whitespace_before": node.operator.whitespace_before,  # type: ignore[union-attr]
        "whitespace_after": node.operator.whitespace_after,  # type: ignore[union-attr]
    }
    if isinstance(node, cst.AugAssign):
        for new_aug in _AUGMENTED.get(type(node.operator), ()):
            prior = 0.7 if len(_AUGMENTED[type(node.operator)]) == 1 else 0.6
            yield node.with_changes(operator=new_aug(**spacing)), prior
        return
    old = type(node.operator)
    for index, new_kind in enumerate(_ARITHMETIC.get(old, ())):
        new: cst.BaseExpression = node.with_changes(
            operator=new_kind(**spacing),
            left=as_operand(node.left, PRECEDENCE[new_kind], right=False),
            right=as_operand(node.right, PRECEDENCE[new_kind], right=True),
        )
        if PRECEDENCE[new_kind] != PRECEDENCE[old]:
            new = parenthesized(new)  # the new operator must group as the old one did
        yield new, 0.7 if index == 0 else 0.5


def boolean(node: cst.BooleanOperation | cst.UnaryOperation) -> Iterator[NodeEdit]:
    """Swap ``and``/``or``, or drop a ``not``."""
    if isinstance(node, cst.UnaryOperation):
        if isinstance(node.operator, cst.Not):
            yield atomic(node.expression), 0.6
        return
    swapped: cst.BaseBooleanOp
    spacing = {
        "whitespace_before": node.operator.whitespace_before,
        "whitespace_after": node.operator.whitespace_after,
    }
    swapped = cst.Or(**spacing) if isinstance(node.operator, cst.And) else cst.And(**spacing)
    yield node.with_changes(operator=swapped), 0.7


def constant(node: cst.Integer) -> Iterator[NodeEdit]:
    """An integer literal plus or minus one (decimal literals only)."""
    if not node.value.isdigit():
        return
    value = int(node.value)
    yield node.with_changes(value=str(value + 1)), 0.8
    if value > 0:
        yield node.with_changes(value=str(value - 1)), 0.8


def off_by_one(node: cst.BaseExpression, prior: float, grouped: bool = False) -> Iterator[NodeEdit]:
    """``expr + 1`` and ``expr - 1`` for an expression used as an index, argument or operand.

    grouped: the expression is an operand of an operator that binds tighter than ``+``, so the
    new sum needs parentheses (``n * k`` -> ``(n - 1) * k``).
    """
    if isinstance(node, (cst.Integer, *_TEXT)) or _negative_literal(node):
        return  # constant() covers literals, `-2` too: never `-2 + 1`; never `"x" + 1`
    if isinstance(node, cst.Tuple) and not node.elements:
        return  # `()` cannot lose its parentheses, and `() + 1` fails whatever it means
    if _truth(node):
        # `(a == b) + 1` is 1 or 2, always true: no developer's fix, and it makes an __eq__ or
        # a check pass whatever it compares (seen on real code: Version.__eq__).
        return
    if _plus_literal(node):
        return  # `n + 2`: constant() makes `n + 3` and `n + 1`, folded, never `n + 2 + 1`
    left = node.with_changes(lpar=[], rpar=[])
    if not additive_safe(left):
        left = parenthesized(left)
    for operator in (cst.Add(), cst.Subtract()):
        new: cst.BaseExpression = cst.BinaryOperation(
            left=left, operator=operator, right=cst.Integer("1")
        )
        yield (parenthesized(new) if grouped and not node.lpar else new), prior


_TEXT = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _truth(node: cst.BaseExpression) -> bool:
    """Whether node is a truth value: a comparison, ``and``/``or``, ``not``, True or False."""
    if isinstance(node, (cst.Comparison, cst.BooleanOperation)):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return True
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _negative_literal(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    )


def _plus_literal(node: cst.BaseExpression) -> bool:
    """``expr + 2`` or ``expr - 2``: its ±1 is the literal's own."""
    return (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, (cst.Add, cst.Subtract))
        and isinstance(node.right, cst.Integer)
        and node.right.value.isdigit()
    )


def drop_one(node: cst.BinaryOperation) -> Iterator[NodeEdit]:
    """``expr + 1`` -> ``expr`` and ``expr - 1`` -> ``expr``: the off-by-one taken away.

    Tried before the literal's ±1, which makes the same change less readably (``expr + 0``).
    """
    if isinstance(node.operator, (cst.Add, cst.Subtract)) and _is_one(node.right):
        yield atomic(node.left), 0.85
    elif isinstance(node.operator, cst.Add) and _is_one(node.left):
        yield atomic(node.right), 0.85


def _is_one(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "1"


def variable(node: cst.Name, names: Sequence[str]) -> Iterator[NodeEdit]:
    """Another local variable or parameter of the function in place of this one."""
    for name in names:
        if name != node.value:
            yield node.with_changes(value=name), 0.5


def attribute(node: cst.Attribute, names: Sequence[str]) -> Iterator[NodeEdit]:
    """Another attribute of the same object (``self.width`` -> ``self.height``)."""
    for name in names:
        if name != node.attr.value:
            yield node.with_changes(attr=node.attr.with_changes(value=name)), 0.5


def swap(node: cst.Call | cst.BinaryOperation) -> Iterator[NodeEdit]:
    """Swap two positional arguments of a call, or the operands of a binary operator."""
    if isinstance(node, cst.BinaryOperation):
        if not isinstance(node.operator, (cst.Add, cst.Multiply, cst.BitAnd, cst.BitOr)):
            yield (
                node.with_changes(left=atomic(node.right), right=atomic(node.left)),
                0.5,
            )
        return
    args = list(node.args)
    positional = [i for i, arg in enumerate(args) if arg.keyword is None and not arg.star]
    for a_index, a in enumerate(positional):
        for b in positional[a_index + 1 :]:
            swapped = list(args)
            swapped[a] = args[a].with_changes(value=args[b].value)
            swapped[b] = args[b].with_changes(value=args[a].value)
            yield node.with_changes(args=swapped), 0.6


def unwrap(node: cst.Call) -> Iterator[NodeEdit]:
    """``f(a)`` -> ``a``."""
    if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
        yield atomic(node.args[0].value), 0.4


_BUILTIN_PAIRS = {
    "min": "max",
    "max": "min",
    "any": "all",
    "all": "any",
    "True": "False",
    "False": "True",
    "floor": "ceil",  # from math import floor
    "ceil": "floor",
}


def builtin_pair(node: cst.Name) -> Iterator[NodeEdit]:
    """min/max, any/all, True/False, floor/ceil (methods: shapes.method_pair)."""
    other = _BUILTIN_PAIRS.get(node.value)
    if other is not None:
        yield node.with_changes(value=other), 0.8
