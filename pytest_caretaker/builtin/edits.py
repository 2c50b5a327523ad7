"""Edits: from proposals to Mutants, each a text edit (start, end, replacement) of the file.

A replaced node becomes its own span of the file's text and the new node's code, written at the
indentation of its statement; a deleted statement is its whole lines (``pass`` if it stood
alone); an inserted one is a copy of a one-line statement of the same function, put before a
statement of a block or after its last. A candidate file is then one string splice away, never a
regeneration of the module, and every byte outside the edit stays as it was. An edit that changes
nothing, repeats an earlier one, leaves a statement that does nothing (``x = x``) or a function
that does not compile (compiles.py: the edited statement is compiled, not the whole function) is
dropped. Generation asks ``go_on`` before each edit, so that the budget can end it (work.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange

from pytest_caretaker.builtin import _codegen
from pytest_caretaker.builtin.compiles import Compiles
from pytest_caretaker.builtin.cut import NEWLINE, Cut, indentation
from pytest_caretaker.builtin.grouping import atomic
from pytest_caretaker.builtin.nodes import nearest
from pytest_caretaker.builtin.sites import Block, Replacement


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
    #: A trial may swap the function's code in place (not so an edit of its decorators, which
    #: ran when it was defined): else only the ordinary verifier can tell.
    in_place: bool = True
    #: Tried only when the failure shows this sign (evidence.FAMILIES' keys): an edit that is
    #: a fix only on such evidence (``a + b`` -> ``b + a`` for text, a no-op for numbers).
    needs: str = ""
    #: The commits a partial revert (reverts.py) undoes part of, full ids.
    reverts: tuple[str, ...] = ()

    def apply(self, text: str) -> str:
        return text[: self.start] + self.replacement + text[self.end :]


class Builder:
    """Turns edits of the file's text into Mutants; drops no-ops, repeats, what does not
    compile; stops (``stopped``) once go_on says no."""

    def __init__(
        self, path: str, function: str, cut: Cut, go_on: Callable[[], bool] | None = None
    ) -> None:
        self.path = path
        self.function = function
        self.cut = cut
        self.go_on = go_on
        self.stopped = False
        self.compiles = Compiles(cut)
        self.found: list[Mutant] = []
        self.seen: set[tuple[int, int, str]] = set()

    def add(
        self,
        line: int,
        operator: str,
        prior: float,
        start: int,
        end: int,
        new: str,
        needs: str = "",
    ) -> None:
        old = self.cut.file_text[start:end]
        if self.stopped or new == old or (start, end, new) in self.seen:
            return
        if self.go_on is not None and not self.go_on():
            self.stopped = True
            return
        self.seen.add((start, end, new))
        text = self.cut.file_text
        if _no_op(text, start, end, new):
            return
        if not self.compiles(start, end, new, line, operator in ("insert", "delete")):
            return
        self.found.append(
            Mutant(
                path=self.path,
                function=self.function,
                line=self.cut.first + line - 1,
                operator=operator,
                description=_describe(old, new),
                prior=prior,
                start=start,
                end=end,
                replacement=new,
                needs=needs,
            )
        )


def node_edit(
    cut: Cut, module: cst.Module, where: CodeRange, replacement: Replacement
) -> tuple[int, int, str]:
    """(start, end, new text): the text edit replacing a node, found at where, by the new one."""
    node, new = replacement.node, replacement.new
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
    indent = indentation(cut.text_lines[replacement.line - 1])
    return start, end, cut.indented(_codegen.code(bare, module, indent))


def statement_edits(block: Block, copies: Mapping[str, int], cut: Cut, built: Builder) -> None:
    """delete a statement (``pass`` if it is alone); insert a copy of a one-line statement (of
    copies, each with its line: the nearest, nodes.NEAR)."""
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
        for copy in nearest(copies, line):
            if copy != previous:  # the same file as the insert before that statement
                built.add(line, "insert", 0.2, at, at, before + cut.indent + indent + copy)


#: A statement that changes nothing: ``x = x``, ``self.a = self.a``, ``n += 0``, ``n *= 1``.
_NO_OP = re.compile(
    r"\s*(?:(?P<name>[\w.]+)\s*=\s*(?P=name)|[\w.]+\s*(?:[-+|^]=\s*0|[*/]=\s*1))\s*(?:#.*)?"
)


def _no_op(text: str, start: int, end: int, new: str) -> bool:
    """Whether the edit leaves a line that does nothing (the edited line, where it is one)."""
    head = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    tail = len(text) if (found := NEWLINE.search(text, end)) is None else found.start()
    return _NO_OP.fullmatch(text[head:start] + new + text[end:tail]) is not None


def _describe(old: str, new: str) -> str:
    if not old:
        return f"insert `{_short(new)}`"
    if not new.strip():
        return f"delete `{_short(old)}`"
    return f"`{_short(old)}` → `{_short(new)}`"


def _short(code: str, limit: int = 60) -> str:
    one_line = " ".join(code.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
