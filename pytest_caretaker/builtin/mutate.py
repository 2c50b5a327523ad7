"""Mutate: every single-edit variant of one function, as text edits of its file.

A function's source is cut out of its file and dedented, so that a method parses on its own, and
parsed with libcst once. One pass over its body finds where each operator (operators.py) applies
and which statement line each place belongs to; statement deletion and insertion are done here, on
whole lines. Each proposal becomes a ``Mutant``: a text edit (start, end, replacement) of the
file's text. A candidate file is then one string splice away, never a regeneration of the module,
and every byte outside the edited node stays as it was. A mutant that does not compile is dropped.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import (
    CodeRange,
    ExpressionContext,
    ExpressionContextProvider,
    MetadataWrapper,
    PositionProvider,
)

from pytest_caretaker.builtin.operators import (
    PRECEDENCE,
    Proposal,
    arithmetic,
    atomic,
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
from pytest_caretaker.project.files import Definition, SourceFile

_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Mutant:
    path: str
    function: str  # qualname of the top-level function or method whose source changes
    line: int  # the line (in the file) of the statement the edit is in
    operator: str  # one of operators.OPERATORS
    description: str  # "`<` → `<=`"
    prior: float  # how often an edit of this kind is the fix, relatively
    start: int  # character offsets into the file's text
    end: int
    replacement: str

    def apply(self, text: str) -> str:
        return text[: self.start] + self.replacement + text[self.end :]


# -- finding the places: one pass over the function ----------------------------------------------


@dataclass
class _Statement:
    line: int  # first line, in the function's own (dedented) text
    end: int  # last line
    indent: str  # its indentation in the function's text
    copy: str = ""  # a one-line simple statement: its text without indentation, else ""
    deletable: bool = False  # a simple statement other than a docstring or pass


_Block = list[_Statement]  # the statements of one indented block, in order


class _Sites(cst.CSTVisitor):
    """Collects the proposals of every operator at every node of one function's body."""

    METADATA_DEPENDENCIES = (PositionProvider, ExpressionContextProvider)

    def __init__(self, module: cst.Module, lines: Sequence[str]) -> None:
        super().__init__()
        self.module = module
        self.lines = lines
        self.found: list[tuple[cst.CSTNode, int, str, cst.CSTNode, float]] = []
        self.names: dict[str, None] = {}  # locals and parameters, in order of appearance
        self.loads: list[tuple[cst.Name, int]] = []
        # obj.attr reads, and the attributes of each such obj the function names anywhere
        self.attribute_loads: list[tuple[cst.Attribute, str, int]] = []
        self.attributes: dict[str, dict[str, None]] = {}
        self.blocks: list[_Block] = []
        self._statement_lines: list[int] = []
        self._not_variables: set[int] = set()  # ids of Names that are keywords or def names
        # id of an expression -> (prior, whether its sum needs parentheses)
        self._off_by_one: dict[int, tuple[float, bool]] = {}

    def _range(self, node: cst.CSTNode) -> CodeRange:
        return self.get_metadata(PositionProvider, node)

    # statements ----------------------------------------------------------------------------------

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        block: _Block = []
        for statement in node.body:
            where = self._range(statement)
            decorators = getattr(statement, "decorators", ())
            if decorators:
                where = CodeRange(self._range(decorators[0]).start, where.end)
            line = self.lines[where.start.line - 1]
            copy, deletable = "", False
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
                deletable = not _is_docstring_or_pass(statement)
                if deletable and where.start.line == where.end.line:
                    copy = self.module.code_for_node(statement.with_changes(leading_lines=[]))
            block.append(
                _Statement(
                    line=where.start.line,
                    end=where.end.line,
                    indent=_indentation(line),
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
        return True

    def visit_Decorator(self, node: cst.Decorator) -> bool:
        return False

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        self.names.setdefault(node.name.value)
        return False

    # expressions ---------------------------------------------------------------------------------

    def _add(self, node: cst.CSTNode, operator: str, proposals: Iterator[Proposal]) -> None:
        if self._statement_lines:  # not in a default value or a decorator
            line = self._statement_lines[-1]
            self.found.extend((node, line, operator, new, prior) for new, prior in proposals)

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
        return True

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        self._add(node, "comparison", comparison(node))
        self._off_by_one[id(node.left)] = (0.7, False)
        for target in node.comparisons:
            self._off_by_one[id(target.comparator)] = (0.7, False)
        return True

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> bool:
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
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        self._add(node, "swap", swap(node))
        self._add(node, "unwrap", unwrap(node))
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if isinstance(node.value, cst.Name):
            base = node.value.value
            self.attributes.setdefault(base, {}).setdefault(node.attr.value)
            context = self.get_metadata(ExpressionContextProvider, node, None)
            if context is ExpressionContext.LOAD and self._statement_lines:
                self.attribute_loads.append((node, base, self._statement_lines[-1]))
        return True

    def visit_Name(self, node: cst.Name) -> bool:
        if id(node) in self._not_variables:
            return True
        context = self.get_metadata(ExpressionContextProvider, node, None)
        if context is ExpressionContext.STORE:
            self.names.setdefault(node.value)
        elif context is ExpressionContext.LOAD and self._statement_lines:
            self.loads.append((node, self._statement_lines[-1]))
            self._add(node, "builtin_pair", builtin_pair(node))
        return True

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _STATEMENTS):
            self._statement_lines.append(self._range(node).start.line)
        context = self._off_by_one.pop(id(node), None)
        if context is not None and isinstance(node, cst.BaseExpression):
            self._add(node, "off_by_one", off_by_one(node, *context))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, _STATEMENTS):
            self._statement_lines.pop()


#: Nodes whose expressions belong to the line they start on (compound statements: the header).
_STATEMENTS = (
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


def _is_docstring_or_pass(statement: cst.SimpleStatementLine) -> bool:
    small = statement.body[0]
    if isinstance(small, cst.Pass):
        return True
    return isinstance(small, cst.Expr) and isinstance(
        small.value, (cst.SimpleString, cst.ConcatenatedString)
    )


# -- from proposals to text edits of the file ---------------------------------------------------


def outermost(source: SourceFile) -> tuple[Definition, ...]:
    """Top-level functions and methods: the units whose code the repairer replaces."""
    found = source.definitions
    return tuple(
        d
        for d in found
        if not any(o is not d and o.start <= d.start and d.end <= o.end for o in found)
    )


def mutants(source: SourceFile, definition: Definition) -> list[Mutant]:
    """Every single-edit mutant of one function (duplicates removed), in the order found."""
    cut = _Cut.of(source, definition)
    if cut is None:
        return []
    try:
        module = cst.parse_module(cut.text)
    except (cst.ParserSyntaxError, RecursionError):
        return []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    sites = _Sites(module, cut.text_lines)
    wrapper.visit(sites)
    positions = wrapper.resolve(PositionProvider)
    built = _Builder(source.path, definition.qualname, cut)

    def node_edit(
        node: cst.CSTNode, line: int, operator: str, new: cst.CSTNode, prior: float
    ) -> None:
        where = positions[node]
        start = cut.offset(where.start.line, where.start.column)
        end = cut.offset(where.end.line, where.end.column)
        # The node's own parentheses lie outside its range: they stay where they are, unless
        # the new node is an atom that needs none (`(len(xs) + 1)` -> `len(xs)`).
        own = getattr(node, "lpar", None)
        bare = new.with_changes(lpar=[], rpar=[]) if own else new
        text = cut.file_text
        if (
            own
            and len(own) == 1
            and isinstance(bare, cst.BaseExpression)
            and atomic(bare) is bare
            and text[start - 1 : start] == "("
            and text[end : end + 1] == ")"
        ):
            start, end = start - 1, end + 1
        indent = _indentation(cut.text_lines[line - 1])
        state = CodegenState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            indent_tokens=[indent] if indent else [],
        )
        bare._codegen(state)
        built.add(line, operator, prior, start, end, cut.indented("".join(state.tokens)))

    for node, line, operator, new, prior in sites.found:
        node_edit(node, line, operator, new, prior)
    names = list(sites.names)
    for name, line in sites.loads:
        if name.value in sites.names:
            for new, prior in variable(name, names):
                node_edit(name, line, "variable", new, prior)
    for node, base, line in sites.attribute_loads:
        for new, prior in attribute(node, list(sites.attributes[base])):
            node_edit(node, line, "variable", new, prior)
    copies = [s.copy for block in sites.blocks for s in block if s.copy]
    for block in sites.blocks:
        _statement_edits(block, copies, cut, built)
    return built.found


def function_source(source: SourceFile, mutant: Mutant) -> str:
    """The dedented source of the mutant's whole function, as an Edit replaces it."""
    definition = source.find(mutant.function)
    if definition is None:
        raise ValueError(f"{source.path} has no function {mutant.function}")
    before = source.text[mutant.start : mutant.end]
    delta = len(_NEWLINE.findall(mutant.replacement)) - len(_NEWLINE.findall(before))
    text = mutant.apply(source.text)
    lines = _NEWLINE.split(text)
    newlines = [*_NEWLINE.findall(text), ""]
    chunk = [
        lines[index] + newlines[index]
        for index in range(definition.start - 1, definition.end + delta)
    ]
    indent = _indentation(chunk[0])
    return "".join(line[len(indent) :] if line.startswith(indent) else line for line in chunk)


def _statement_edits(block: _Block, copies: Sequence[str], cut: _Cut, built: _Builder) -> None:
    """delete a statement (``pass`` if it is alone); insert a copy of a one-line statement."""
    for statement in block:
        if statement.deletable:
            start, end = cut.line_start(statement.line), cut.line_start(statement.end + 1)
            alone = len(block) == 1
            new = f"{cut.indent}{statement.indent}pass{cut.newline}" if alone else ""
            built.add(statement.line, "delete", 0.3, start, end, new)
    last = block[-1]
    places = [(s.line, cut.line_start(s.line), s.indent) for s in block]
    places.append((last.line, cut.line_start(last.end + 1), last.indent))
    for index, (line, at, indent) in enumerate(places):
        before = (
            cut.newline
            if at == len(cut.file_text) and not cut.file_text.endswith(("\n", "\r"))
            else ""
        )
        previous = block[index - 1].copy if index else None
        for copy in copies:
            if copy != previous:  # the same file as the insert before that statement
                built.add(line, "insert", 0.2, at, at, before + cut.indent + indent + copy)


class _Builder:
    """Turns edits of the file's text into Mutants, dropping duplicates and no-ops."""

    def __init__(self, path: str, function: str, cut: _Cut) -> None:
        self.path = path
        self.function = function
        self.cut = cut
        self.found: list[Mutant] = []
        self.seen: set[tuple[int, int, str]] = set()

    def add(self, line: int, operator: str, prior: float, start: int, end: int, new: str) -> None:
        old = self.cut.file_text[start:end]
        if new == old or (start, end, new) in self.seen:
            return
        self.seen.add((start, end, new))
        text = self.cut.file_text
        first, last = self.cut.starts[0], self.cut.starts[-1]
        function = text[first:start] + new + text[end:last]
        try:
            compile(textwrap.dedent(function), "<mutant>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return
        if not old:
            description = f"insert `{_short(new)}`"
        elif not new.strip():
            description = f"delete `{_short(old)}`"
        else:
            description = f"`{_short(old)}` → `{_short(new)}`"
        self.found.append(
            Mutant(
                path=self.path,
                function=self.function,
                line=self.cut.first + line - 1,
                operator=operator,
                description=description,
                prior=prior,
                start=start,
                end=end,
                replacement=new,
            )
        )


@dataclass(frozen=True)
class _Cut:
    """A function's lines cut out of its file and dedented, with the way back to file offsets."""

    text: str  # the dedented function
    file_text: str
    first: int  # its first line in the file
    indent: str  # what was removed from every non-blank line
    starts: tuple[int, ...]  # file offset of each of its lines, and of the line after it
    stripped: tuple[bool, ...]  # whether the indent was removed from that line
    newline: str

    @classmethod
    def of(cls, source: SourceFile, definition: Definition) -> _Cut | None:
        file_text = source.text
        line_starts = [0] + [m.end() for m in _NEWLINE.finditer(file_text)]
        if line_starts[-1] != len(file_text):
            line_starts.append(len(file_text))
        first, last = definition.start, definition.end
        if last >= len(line_starts):
            return None
        starts = tuple(line_starts[first - 1 : last + 1])
        lines = [file_text[a:b] for a, b in itertools.pairwise(starts)]
        indent = _indentation(lines[0])
        stripped: list[bool] = []
        parts: list[str] = []
        for line in lines:
            if line.startswith(indent):
                parts.append(line[len(indent) :])
                stripped.append(True)
            elif not line.strip():
                parts.append(line)
                stripped.append(False)
            else:
                return None  # a line less indented than the def: a multi-line string, say
        found = _NEWLINE.search(lines[0])
        newline = found.group() if found else "\n"
        return cls("".join(parts), file_text, first, indent, starts, tuple(stripped), newline)

    @cached_property
    def text_lines(self) -> list[str]:
        return _NEWLINE.split(self.text)

    def offset(self, line: int, column: int) -> int:
        """File offset of a (line, column) of the dedented text."""
        return self.starts[line - 1] + column + (len(self.indent) if self.stripped[line - 1] else 0)

    def line_start(self, line: int) -> int:
        return self.starts[min(line, len(self.starts)) - 1]

    def indented(self, code: str) -> str:
        """Code generated at the dedented level, indented back to the function's level."""
        if not self.indent:
            return code
        return re.sub(r"(\r\n|\r|\n)(?=[^\r\n])", lambda m: m.group(1) + self.indent, code)


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _short(code: str, limit: int = 60) -> str:
    one_line = " ".join(code.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
