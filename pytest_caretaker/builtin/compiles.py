"""Compiles: whether a function still compiles with one edit, at the cost of the edited statement.

A mutant that does not compile is dropped before it costs a trial. Compiling the whole function
for each one made generation quadratic: a 766-line function (python-tabulate's ``tabulate()``)
compiled 766 lines per candidate, tens of thousands of times, and was still generating after
330 s. The function is parsed once instead, and each edit compiles only the statement it is in
(only its header, ``if x:`` with a ``pass``, when the edit is there), inside what the compiler
needs of its surroundings: a ``def`` for ``return`` and ``yield``, a loop for ``break`` and
``continue``, a class body for neither. An inserted statement compiles on its own, in the
surroundings of where it goes; a deleted one leaves nothing to compile.

What only the whole function can tell (a name declared ``global`` or ``nonlocal`` after its use,
``await`` and async generators, tabs) is left to the whole function's compile, as before.
"""

from __future__ import annotations

import ast
import bisect
import textwrap
from dataclasses import dataclass, field

from pytest_caretaker.builtin.cut import Cut, indentation
from pytest_caretaker.syntax import parse

#: Anything in a function that makes a statement's compile depend on more than its surroundings.
_WHOLE = (ast.Global, ast.Nonlocal, ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)
#: The line that stands for each kind of surroundings.
_DEF, _CLASS, _LOOP = "def _():", "class _:", "while _:"


@dataclass
class _Node:
    """A statement, its span in the file's text, and the statements inside it, by block."""

    statement: ast.stmt
    start: int
    end: int
    blocks: list[tuple[str, list[_Node]]] = field(default_factory=list)  # and their surroundings


class Compiles:
    """Whether one function (a Cut of its file) compiles with an edit of its file's text."""

    def __init__(self, cut: Cut) -> None:
        self.cut = cut
        self.whole = "\t" in cut.text
        self.top: list[_Node] = []
        if self.whole:
            return
        try:
            tree = parse(cut.text)
        except (SyntaxError, ValueError, RecursionError):
            self.whole = True
            return
        self.whole = any(isinstance(node, _WHOLE) for node in ast.walk(tree))
        self.top = self._nodes(tree.body)

    def __call__(self, start: int, end: int, new: str, line: int, lines: bool = False) -> bool:
        """Whether the function compiles with file_text[start:end] replaced by new; line: the
        statement's (in the cut); lines: the edit inserts or deletes whole statements there."""
        found = None if self.whole else self._unit(start, end, new, line, lines)
        if found is None:
            text = self.cut.file_text
            first, last = self.cut.starts[0], self.cut.starts[-1]
            return _compiles(textwrap.dedent(text[first:start] + new + text[end:last]))
        return _compiles(found)

    def _unit(self, start: int, end: int, new: str, line: int, lines: bool) -> str | None:
        """The edited statement (or header, or inserted statement) in its surroundings; None
        when the whole function must be compiled."""
        text = self.cut.file_text
        if lines:
            if new.strip() in ("", "pass"):
                return "pass\n"  # a deletion: what is left compiled before
            path = self._path(line=line)
            if not path:
                return None
            unit = new
        else:
            path = self._path(span=(start, end))
            if not path:
                return None
            node = path[-1][1]
            statement = node.statement
            unit_end = self.cut.line_start((statement.end_lineno or statement.lineno) + 1)
            unit_start = self.cut.line_start(statement.lineno)
            body = getattr(statement, "body", None)
            tail = ""
            if isinstance(body, list) and body and body[0].lineno > statement.lineno:
                header_end = self.cut.line_start(body[0].lineno)
                if end <= header_end:  # the edit is in the header: it alone, with a pass
                    unit_end = header_end
                    first = self.cut.text_lines[body[0].lineno - 1]
                    tail = self.cut.indent + indentation(first) + "pass\n"
            unit = text[unit_start:start] + new + text[end:unit_end]
            unit = _no_elif(unit) + ("" if unit.endswith(("\n", "\r")) else "\n") + tail
        surroundings = [kind for kind, _ in path if kind]
        return _wrapped(unit, surroundings)

    def _path(self, span: tuple[int, int] | None = None, line: int = 0) -> list[tuple[str, _Node]]:
        """The statements from the top down to the innermost that holds span on lines of its own
        (or, with line, to the outermost that starts on that line), each with the surroundings
        its block gives (a def, a class, a loop, or none)."""
        path: list[tuple[str, _Node]] = []
        blocks = [("", self.top)]
        while True:
            if span is not None:
                ahead = [b for b in blocks if b[1][0].start <= span[0]]
                kind, nodes = ahead[-1] if ahead else ("", [])
                at = bisect.bisect_right(nodes, span[0], key=lambda n: n.start) - 1
                node = nodes[at] if at >= 0 else None
                if node is None or span[1] > node.end or not self._alone(node):
                    return path
            else:
                ahead = [b for b in blocks if b[1][0].statement.lineno <= line]
                kind, nodes = ahead[-1] if ahead else ("", [])
                before = [n for n in nodes if n.statement.lineno <= line]
                node = before[-1] if before else None
                if node is None or (node.statement.end_lineno or 0) < line:
                    return []  # not a statement's line: compile the whole function
            path.append((kind, node))
            if span is None and node.statement.lineno == line:
                return path
            blocks = node.blocks
            if not blocks:
                return path

    def _alone(self, node: _Node) -> bool:
        """Whether the statement starts its line (else its line holds more: ``else: x = 1``)."""
        head = self.cut.line_start(node.statement.lineno)
        before = self.cut.file_text[head : node.start]
        return not before.strip()

    def _nodes(self, statements: list[ast.stmt]) -> list[_Node]:
        found: list[_Node] = []
        for statement in statements:
            node = _Node(statement, self._offset(statement, False), self._offset(statement, True))
            loop = isinstance(statement, (ast.For, ast.While))
            own = _DEF if isinstance(statement, ast.FunctionDef) else ""
            own = _CLASS if isinstance(statement, ast.ClassDef) else own
            for name in ("body", "orelse", "finalbody"):
                block = getattr(statement, name, None)
                if isinstance(block, list) and block:
                    kind = _LOOP if loop and name == "body" else own
                    node.blocks.append((kind, self._nodes(block)))
            for handler in [*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())]:
                node.blocks.append(("", self._nodes(handler.body)))
            node.blocks.sort(key=lambda item: item[1][0].start)
            found.append(node)
        return found

    def _offset(self, statement: ast.stmt, end: bool) -> int:
        """A statement's start or end as an offset of the file's text (ast counts bytes)."""
        line = (statement.end_lineno or statement.lineno) if end else statement.lineno
        column = (statement.end_col_offset or 0) if end else statement.col_offset
        text = self.cut.text_lines[line - 1]
        if not text.isascii():
            column = len(text.encode("utf-8")[:column].decode("utf-8", "replace"))
        return self.cut.offset(line, column)


def _no_elif(unit: str) -> str:
    """An ``elif`` clause's text as an ``if`` of its own."""
    stripped = unit.lstrip(" \t")
    if stripped.startswith("elif"):
        return unit[: len(unit) - len(stripped)] + stripped[2:]
    return unit


def _wrapped(unit: str, surroundings: list[str]) -> str:
    """unit inside its surroundings, one column deeper each (unit is indented deeper still)."""
    if not surroundings and unit[:1] in (" ", "\t"):
        surroundings = ["if 1:"]
    lines = [" " * depth + kind + "\n" for depth, kind in enumerate(surroundings)]
    return "".join(lines) + unit


def _compiles(text: str) -> bool:
    try:
        compile(text, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True
