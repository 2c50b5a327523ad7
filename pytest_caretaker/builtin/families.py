"""Families: the edit families that need the whole function seen, found in a pass of their own.

sites.py finds the one-token edits; this pass, over the same parsed function, adds:

- ``to_variable``: an expression in an argument, operand, index, assigned or returned value for a
  variable bound before its statement (a parameter, an earlier assignment or loop target), the
  nearest few, never one the expression itself reads (``len(xs)`` -> ``xs`` is unwrap's);
- ``copy``: the slot's expression for another of the same kind from elsewhere in the function (a
  call of the same function, a subscript of the same object, an operation with the same
  operator: ``hi - x`` -> ``hi - lo``), the nearest few;
- ``variable`` for attributes beyond sites.py's: ``self.x`` for another attribute of ``self``
  named anywhere in the class, read or written (``self.w = w`` -> ``self.h = w``);
- the node-local shapes of shapes.py: string concatenation swapped, method pairs, precedence,
  the branches of a conditional expression swapped.

Each is bounded (``NEAREST`` names or copies a slot, ``CLASS_ATTRIBUTES`` attributes), and its
prior is below the common one-token families. The pass also records what ``tidy`` needs to keep a
mutant reading as a developer would write it: which nodes sit where parentheses matter, and which
integer literals are negated.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, PositionProvider

from pytest_caretaker.builtin.idioms import Idioms
from pytest_caretaker.builtin.nodes import STATEMENTS
from pytest_caretaker.builtin.operators import NodeEdit, attribute
from pytest_caretaker.builtin.shapes import (
    branches_swapped,
    concat_swap,
    method_pair,
    negated,
    operands_swapped,
    regroup,
)
from pytest_caretaker.builtin.sites import Replacement

#: How many variables (to_variable) or other expressions (copy) one slot may be replaced by.
NEAREST = 3
#: How many expressions before and after a slot's line copy looks at for its nearest.
REACH = 200
#: How many attributes of ``self`` named elsewhere in the class a ``self.x`` may become.
CLASS_ATTRIBUTES = 8

_SLOT_KINDS = (cst.Call, cst.Attribute, cst.Subscript, cst.BinaryOperation)
_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class Families(cst.CSTVisitor):
    """Collects the proposals of the whole-function families over one function's body."""

    METADATA_DEPENDENCIES = (PositionProvider, ExpressionContextProvider)

    def __init__(self, module: cst.Module, attributes: Mapping[str, Sequence[str]]) -> None:
        super().__init__()
        self.module = module
        self.attributes = attributes  # object name -> attributes its class names elsewhere
        self.tight: set[int] = set()  # ids of nodes that are operands: parentheses matter there
        self.negated: dict[int, cst.UnaryOperation] = {}  # id of a literal -> its `-literal`
        self.added: set[int] = set()  # ids of literals added or subtracted (the 1 of `n + 1`)
        self.idioms = Idioms()  # indices and slices, written as a developer would
        self._found: list[Replacement] = []
        self._lines: list[int] = []  # the lines of the statements being visited
        self._scopes = 0  # inside a lambda or comprehension: its names are not the function's
        self._bound: dict[str, int] = {}  # variable -> the line that first binds it (0: param)
        self._slots: list[tuple[cst.BaseExpression, int]] = []
        self._sources: list[tuple[cst.BaseExpression, int, str]] = []  # copy's expressions
        self._objects: list[tuple[cst.Attribute, str, int]] = []  # obj.attr, read or written

    def replacements(self) -> Iterator[Replacement]:
        """Every proposal, once the visit is over: node-local shapes, then the others."""
        yield from self._found
        for node, line in self._slots:
            for new, prior in self._to_variable(node, line):
                yield Replacement(node, line, "to_variable", new, prior)
            for new, prior in self._copies(node, line):
                yield Replacement(node, line, "copy", new, prior)
        for node, base, line in self._objects:
            for new, _ in attribute(node, self.attributes.get(base, ())):
                yield Replacement(node, line, "variable", new, 0.4)

    def tidy(self, replacement: Replacement) -> Replacement | None:
        """The replacement without parentheses its place does not need, with a negated
        literal folded (``-1`` -> ``0``, not ``-0``) and in the idiomatic form (idioms.py); None
        for ``n + 1`` -> ``n + 0``, which ``drop_one`` writes as ``n``."""
        replacement = self.idioms.tidy(replacement)
        node, new = replacement.node, replacement.new
        if id(node) in self.added and isinstance(new, cst.Integer) and new.value == "0":
            return None
        if id(node) in self.negated and isinstance(new, cst.Integer) and new.value == "0":
            return replacement._replace(node=self.negated[id(node)])
        if (
            isinstance(new, cst.BinaryOperation)
            and len(new.lpar) == 1
            and not getattr(node, "lpar", ())
            and id(node) not in self.tight
        ):
            return replacement._replace(new=new.with_changes(lpar=[], rpar=[]))
        return replacement

    # where proposals are made --------------------------------------------------------------------

    def _code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def _propose(self, node: cst.CSTNode, operator: str, proposals: Iterator[NodeEdit]) -> None:
        if not self._lines:
            return
        try:
            for new, prior in proposals:
                self._found.append(Replacement(node, self._lines[-1], operator, new, prior))
        except cst.CSTValidationError:
            pass  # a node libcst will not build: this site's last proposals, never the search

    def _slot(self, node: cst.BaseExpression | None) -> None:
        if node is not None and isinstance(node, _SLOT_KINDS) and self._lines:
            self._slots.append((node, self._lines[-1]))

    def _to_variable(self, node: cst.BaseExpression, line: int) -> Iterator[NodeEdit]:
        reads = _names(node)
        earlier = [(at, name) for name, at in self._bound.items() if at < line]
        earlier = [(at, name) for at, name in earlier if name not in reads]
        for _, name in sorted(earlier, reverse=True)[:NEAREST]:
            yield cst.Name(name), 0.3

    def _copies(self, node: cst.BaseExpression, line: int) -> Iterator[NodeEdit]:
        code = self._code(node)
        others: dict[str, tuple[int, cst.BaseExpression]] = {}
        # The REACH expressions around its line: all of an ordinary function's (a 700-line one
        # would compare every slot with every expression).
        middle = bisect.bisect_left(self._sources, line, key=lambda source: source[1])
        for other, at, text in self._sources[max(0, middle - REACH) : middle + REACH]:
            if _same_kind(node, other) and text not in code and code not in text:
                distance = abs(at - line)
                if text not in others or distance < others[text][0]:
                    others[text] = (distance, other)
        nearest = sorted(others.items(), key=lambda item: item[1][0])[:NEAREST]
        for _, (_, other) in nearest:
            yield other.with_changes(lpar=[], rpar=[]), 0.25

    # the visit -----------------------------------------------------------------------------------

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, STATEMENTS):
            self._lines.append(self.get_metadata(PositionProvider, node).start.line)
        if isinstance(node, _SCOPES):
            self._scopes += 1
        if isinstance(node, _SLOT_KINDS) and self._lines:
            self._sources.append((node, self._lines[-1], self._code(node)))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, STATEMENTS):
            self._lines.pop()
        if isinstance(original_node, _SCOPES):
            self._scopes -= 1

    def visit_Decorator(self, node: cst.Decorator) -> bool:
        return False

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        if not self._lines and not self._scopes:  # the function's own, not a lambda's
            self._bound.setdefault(node.name.value, 0)
        return False

    def visit_Name(self, node: cst.Name) -> bool:
        context = self.get_metadata(ExpressionContextProvider, node, None)
        if context is ExpressionContext.STORE and self._lines and not self._scopes:
            self._bound.setdefault(node.value, self._lines[-1])
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.star:
            self.tight.add(id(node.value))
        else:
            self._slot(node.value)
        return True

    def visit_Index(self, node: cst.Index) -> bool:
        self._slot(node.value)
        return True

    def visit_Assign(self, node: cst.Assign) -> bool:
        self._slot(node.value)
        return True

    def visit_Return(self, node: cst.Return) -> bool:
        self._slot(node.value)
        return True

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        self._slot(node.left)
        for target in node.comparisons:
            self._slot(target.comparator)
        return True

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> bool:
        self.tight.update((id(node.left), id(node.right)))
        if isinstance(node.operator, (cst.Add, cst.Subtract)):
            self.added.add(id(node.right))
            if isinstance(node.operator, cst.Add):
                self.added.add(id(node.left))
        self._slot(node.left)
        self._slot(node.right)
        self._propose(node, "concat_swap", concat_swap(node))
        if self._lines and not any(map(_is_number, (node.left, node.right))):
            # Text or lists joined the wrong way round (`result + digit`): only on the evidence
            # of a reversed result, since for numbers the swap changes nothing.
            for new, prior in operands_swapped(node):
                self._found.append(
                    Replacement(node, self._lines[-1], "concat_swap", new, prior, "reversed")
                )
        self._propose(node, "precedence", regroup(node))
        return True

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> bool:
        self.tight.add(id(node.expression))
        if isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
            self.negated[id(node.expression)] = node
        self._propose(node, "precedence", regroup(node))
        return True

    def visit_If(self, node: cst.If) -> bool:
        self._propose(node.test, "boolean", negated(node.test))
        return True

    def visit_IfExp(self, node: cst.IfExp) -> bool:
        self._propose(node, "swap", branches_swapped(node))
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.tight.add(id(node.value))
        context = self.get_metadata(ExpressionContextProvider, node, None)
        if context is ExpressionContext.LOAD:
            self._propose(node, "builtin_pair", method_pair(node))
        if isinstance(node.value, cst.Name) and self._lines and node.value.value in self.attributes:
            self._objects.append((node, node.value.value, self._lines[-1]))
        return True

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        self.tight.add(id(node.value))
        self.idioms.record(node)
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        self.tight.add(id(node.func))
        return True

    def visit_Await(self, node: cst.Await) -> bool:
        self.tight.add(id(node.expression))
        return True


def _same_kind(node: cst.BaseExpression, other: cst.BaseExpression) -> bool:
    """A call of the same function, a subscript of the same object, an operation with the same
    operator: what a copied-and-pasted expression the author forgot to adapt looks like."""
    if isinstance(node, cst.Call) and isinstance(other, cst.Call):
        return node.func.deep_equals(other.func)
    if isinstance(node, cst.Subscript) and isinstance(other, cst.Subscript):
        return node.value.deep_equals(other.value)
    if isinstance(node, cst.BinaryOperation) and isinstance(other, cst.BinaryOperation):
        return type(node.operator) is type(other.operator)
    return False


def _is_number(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float, cst.Imaginary))


def _names(node: cst.CSTNode) -> set[str]:
    found = {node.value} if isinstance(node, cst.Name) else set()
    for child in node.children:
        found |= _names(child)
    return found
