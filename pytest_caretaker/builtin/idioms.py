"""Idioms: an edit of an index or a slice written the way a developer writes it.

An off-by-one of ``xs[len(xs)]`` is ``xs[len(xs) - 1]``, which reads as ``xs[-1]``; a constant
edit of ``lines[1:]`` that makes it ``lines[0:]`` means ``lines``. Among candidates that pass,
the idiomatic one is the one to show, so the edit is written so from the start (families.py's
``tidy`` asks here).
"""

from __future__ import annotations

import libcst as cst

from pytest_caretaker.builtin.sites import Replacement


class Idioms:
    """The indices and slice bounds of one function, by the id of their expression."""

    def __init__(self) -> None:
        self.sequences: dict[int, cst.BaseExpression] = {}  # index or bound -> what is indexed
        self.starts: dict[int, cst.Subscript] = {}  # the start of an `xs[start:]` -> xs[start:]

    def record(self, node: cst.Subscript) -> None:
        for element in node.slice:
            inner = element.slice
            if isinstance(inner, cst.Index):
                self.sequences[id(inner.value)] = node.value
            elif isinstance(inner, cst.Slice):
                for bound in (inner.lower, inner.upper):
                    if bound is not None:
                        self.sequences[id(bound)] = node.value
                alone = len(node.slice) == 1 and inner.upper is None and inner.step is None
                if alone and inner.lower is not None:
                    self.starts[id(inner.lower)] = node

    def tidy(self, replacement: Replacement) -> Replacement:
        """``len(xs) - k`` as an index or bound of xs becomes ``-k``; ``xs[0:]`` becomes xs."""
        node, new = replacement.node, replacement.new
        whole = self.starts.get(id(node))
        if whole is not None and isinstance(new, cst.Integer) and new.value == "0":
            return replacement._replace(node=whole, new=whole.value)
        sequence = self.sequences.get(id(node))
        if sequence is not None and _from_the_end(new, sequence):
            assert isinstance(new, cst.BinaryOperation)
            negative = cst.UnaryOperation(operator=cst.Minus(), expression=new.right)
            return replacement._replace(new=negative)
        return replacement


def _from_the_end(new: cst.CSTNode, sequence: cst.BaseExpression) -> bool:
    """Whether new is ``len(sequence) - k`` for a literal k."""
    if not (isinstance(new, cst.BinaryOperation) and isinstance(new.operator, cst.Subtract)):
        return False
    length, right = new.left, new.right
    return (
        isinstance(right, cst.Integer)
        and right.value.isdigit()
        and int(right.value) > 0
        and not new.lpar
        and isinstance(length, cst.Call)
        and isinstance(length.func, cst.Name)
        and length.func.value == "len"
        and len(length.args) == 1
        and length.args[0].value.deep_equals(sequence)
    )
