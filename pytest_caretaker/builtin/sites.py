"""Sites: one pass over a function's body, finding every place an edit operator applies.

The visitor asks each operator (operators.py) for its proposals at every node of the body, and
records the line of the statement each node is in: the line a mutant is reported on, and the
indentation its new code is written at. Default values, decorators and annotations are not the
body and are left alone. A variable is swapped for another local or parameter, an attribute for
another of the same object, so those proposals wait until the whole function has been seen
(``Sites.replacements``). Text (``"pre" + name``) gets neither ±1 nor another arithmetic
operator: on a string both raise. The statements of each indented block are recorded too, for
the statement edits (edits.py): which may be deleted, and which, being one line, may be copied.
The same pass serves a module- or class-level assignment (a constant, a lambda bound to a name):
its line is one statement, and with ``literals`` its decimals get the edits of literals.py too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import libcst as cst
from libcst.metadata import (
    CodeRange,
    ExpressionContext,
    ExpressionContextProvider,
    PositionProvider,
)

from pytest_caretaker.builtin.cut import indentation
from pytest_caretaker.builtin.grouping import PRECEDENCE
from pytest_caretaker.builtin.literals import decimal, magnitude
from pytest_caretaker.builtin.nodes import STATEMENTS, is_docstring_or_pass, is_text, nearest
from pytest_caretaker.builtin.operators import (
    NodeEdit,
    arithmetic,
    attribute,
    boolean,
    builtin_pair,
    comparison,
    constant,
    drop_one,
    off_by_one,
    swap,
    unwrap,
    variable,
)


class Replacement(NamedTuple):
    """One proposal at one place: replace node, in the statement on line, with new."""

    node: cst.CSTNode
    line: int  # the statement's first line, in the function's own (dedented) text
    operator: str
    new: cst.CSTNode
    prior: float
    needs: str = ""  # a sign the failure must show for it to be tried (evidence.py), if any


@dataclass
class Statement:
    line: int  # first line, in the function's own (dedented) text
    end: int  # last line
    indent: str  # its indentation in the function's text
    copy: str = ""  # a one-line simple statement: its text without indentation, else ""
    deletable: bool = False  # a simple statement other than a docstring or pass


Block = list[Statement]  # the statements of one indented block, in order


class Sites(cst.CSTVisitor):
    """Collects the proposals of every operator at every node of one function's body."""

    METADATA_DEPENDENCIES = (PositionProvider, ExpressionContextProvider)

    def __init__(
        self,
        module: cst.Module,
        lines: Sequence[str],
        literals: bool = False,
        decorators: bool = False,
    ) -> None:
        super().__init__()
        self.module = module
        self.lines = lines
        self.literals = literals  # a constant's value: decimals get literals.py's edits
        #: The arguments of the function's decorators instead of its body, each edit on the line
        #: of the body's first statement: what runs when the function is called.
        self.decorators = decorators
        self._found: list[Replacement] = []
        self._names: dict[str, int] = {}  # locals and parameters (first line), in that order
        self._loads: list[tuple[cst.Name, int]] = []
        self._attribute_loads: list[tuple[cst.Attribute, str, int]] = []  # obj.attr reads
        self._attributes: dict[str, dict[str, None]] = {}  # each obj's attributes named anywhere
        self.blocks: list[Block] = []
        self._statement_lines: list[int] = []
        self._not_variables: set[int] = set()  # ids of Names that are keywords or def names
        self._off_by_one: dict[int, tuple[float, bool]] = {}  # id -> (prior, sum in parentheses)
        self._returned: set[int] = set()  # ids of the values of return statements

    def replacements(self) -> Iterator[Replacement]:
        """Every proposal, once the visit is over: in the order found, then variables, then
        attributes of the same object (which need every name the function uses)."""
        yield from self._found
        for name, line in self._loads:
            if name.value in self._names:
                for new, prior in variable(name, nearest(self._names, line)):
                    yield Replacement(name, line, "variable", new, prior)
        for node, base, line in self._attribute_loads:
            for new, prior in attribute(node, list(self._attributes[base])):
                yield Replacement(node, line, "variable", new, prior)

    @property
    def copies(self) -> dict[str, int]:
        """The one-line statements that may be deleted, unindented (each at its first line)."""
        found: dict[str, int] = {}
        for statement in (s for block in self.blocks for s in block if s.copy):
            found.setdefault(statement.copy, statement.line)
        return found

    def _range(self, node: cst.CSTNode) -> CodeRange:
        return self.get_metadata(PositionProvider, node)

    # statements ----------------------------------------------------------------------------------

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        block: Block = []
        for statement in node.body:
            where = self._range(statement)
            decorators = getattr(statement, "decorators", ())
            if decorators:
                where = CodeRange(self._range(decorators[0]).start, where.end)
            line = self.lines[where.start.line - 1]
            copy, deletable = "", False
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                deletable = not is_docstring_or_pass(statement)
                if deletable and where.start.line == where.end.line:
                    copy = self.module.code_for_node(statement.with_changes(leading_lines=[]))
            block.append(
                Statement(
                    line=where.start.line,
                    end=where.end.line,
                    indent=indentation(line),
                    copy=copy.lstrip(" \t"),
                    deletable=deletable,
                )
            )
        self.blocks.append(block)
        return True

    # what is not the function's body -----------------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if not self._statement_lines:
            self._not_variables.add(id(node.name))  # the function itself
        if not self.decorators:
            return True
        body = node.body.body[0] if isinstance(node.body, cst.IndentedBlock) else node.body
        self._statement_lines.append(self._range(body).start.line)
        for decorator in node.decorators:
            if isinstance(decorator.decorator, cst.Call):  # the arguments, not the callee
                for argument in decorator.decorator.args:
                    argument.visit(self)
        self._statement_lines.pop()
        return False

    def visit_Decorator(self, node: cst.Decorator) -> bool:
        return False

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        self._names.setdefault(node.name.value, 0)
        return False

    # expressions ---------------------------------------------------------------------------------

    def _add(self, node: cst.CSTNode, operator: str, proposals: Iterator[NodeEdit]) -> None:
        if not self._statement_lines:  # in a default value or a decorator
            return
        line = self._statement_lines[-1]
        try:
            for new, prior in proposals:
                self._found.append(Replacement(node, line, operator, new, prior))
        except cst.CSTValidationError:
            pass  # a node libcst will not build: this site's last mutants, never the search

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self._not_variables.add(id(node.keyword))
        if not node.star:
            self._off_by_one[id(node.value)] = (0.8, False)
        return True

    def visit_Index(self, node: cst.Index) -> bool:
        self._off_by_one[id(node.value)] = (0.8, False)
        return True

    def visit_Slice(self, node: cst.Slice) -> bool:
        for bound in (node.lower, node.upper):
            if bound is not None:
                self._off_by_one[id(bound)] = (0.8, False)
        return True

    def visit_Assign(self, node: cst.Assign) -> bool:
        self._off_by_one[id(node.value)] = (0.5, False)
        return True

    def visit_Return(self, node: cst.Return) -> bool:
        if node.value is not None:
            self._off_by_one[id(node.value)] = (0.5, False)
            self._returned.add(id(node.value))
        return True

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        self._add(node, "comparison", comparison(node))
        self._off_by_one[id(node.left)] = (0.7, False)
        for target in node.comparisons:
            self._off_by_one[id(target.comparator)] = (0.7, False)
        return True

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> bool:
        if not (is_text(node.left) or is_text(node.right)):  # text: never `"pre" - name`
            self._add(node, "arithmetic", arithmetic(node))
            self._add(node, "swap", swap(node))
            self._add(node, "off_by_one", drop_one(node))
        # Operands of + and - need no rule of their own: ±1 on the whole sum is the same edit.
        if not isinstance(node.operator, (cst.Add, cst.Subtract)):
            grouped = PRECEDENCE.get(type(node.operator), 0) > PRECEDENCE[cst.Add]
            for operand in (node.left, node.right):
                self._off_by_one.setdefault(id(operand), (0.6, grouped))
        return True

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        if not is_text(node.value):
            self._add(node, "arithmetic", arithmetic(node))
        return True

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> bool:
        self._add(node, "boolean", boolean(node))
        return True

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> bool:
        self._add(node, "boolean", boolean(node))
        return True

    def visit_Integer(self, node: cst.Integer) -> bool:
        self._add(node, "constant", constant(node))
        self._add(node, "magnitude", magnitude(node, self.literals))
        return True

    def visit_Float(self, node: cst.Float) -> bool:
        if self.literals:
            self._add(node, "constant", decimal(node))
        self._add(node, "magnitude", magnitude(node, self.literals))
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        self._add(node, "swap", swap(node))
        # ``return str(x)`` -> ``return x`` changes nothing where x is a str: where it heals, the
        # function no longer returns the str it was written to (a Version equal to "1.2.3").
        named = node.func.value if isinstance(node.func, cst.Name) else None
        if not (named == "str" and id(node) in self._returned):
            self._add(node, "unwrap", unwrap(node))
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if isinstance(node.value, cst.Name):
            base = node.value.value
            self._attributes.setdefault(base, {}).setdefault(node.attr.value)
            context = self.get_metadata(ExpressionContextProvider, node, None)
            if context is ExpressionContext.LOAD and self._statement_lines:
                self._attribute_loads.append((node, base, self._statement_lines[-1]))
        return True

    def visit_Name(self, node: cst.Name) -> bool:
        if id(node) in self._not_variables:
            return True
        context = self.get_metadata(ExpressionContextProvider, node, None)
        if context is ExpressionContext.STORE:
            self._names.setdefault(node.value, self._range(node).start.line)
        elif context is ExpressionContext.LOAD and self._statement_lines:
            self._loads.append((node, self._statement_lines[-1]))
            self._add(node, "builtin_pair", builtin_pair(node))
        return True

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, STATEMENTS):
            self._statement_lines.append(self._range(node).start.line)
        context = self._off_by_one.pop(id(node), None)
        if context is not None and isinstance(node, cst.BaseExpression) and not is_text(node):
            self._add(node, "off_by_one", off_by_one(node, *context))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, STATEMENTS):
            self._statement_lines.pop()
