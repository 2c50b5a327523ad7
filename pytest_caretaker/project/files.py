"""The project as caretaker reads it: each file once, its definitions, which files are tests,
and which paths are the project's own code at all. Standard library only.

A definition is what a fix replaces by name: a function or method (``def``), and, at module or
class level, a one-name assignment (``VAT = 0.2``, ``RATE: float = 0.2``, ``area = lambda w, h:
w * h``), named like a function (``VAT``, ``Shop.RATE``). An augmented assignment (``LIMIT += 5``)
defines nothing, it changes a name defined elsewhere: it is listed as kind ``augmented`` under that
name, so that a fix in the same form can replace it and the built-in repairer can mutate it, but
``find`` and ``enclosing`` never answer with it. Assignments inside functions are the function's
body; assignments to several names (``a = b = 0``, ``a, b = …``) or sharing a line with another
statement are not definitions (replacing one would rewrite the other).
"""

from __future__ import annotations

import ast
import os
import re
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cached_property, lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal

from pytest_caretaker import syntax


def _library_roots() -> tuple[str, ...]:
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    roots = {os.path.realpath(sysconfig.get_paths()[key]) for key in keys}
    roots.add(os.path.realpath(Path(__file__).parents[1]))  # caretaker's own package
    return tuple(sorted(roots))


_LIBRARY_ROOTS = _library_roots()


@lru_cache(maxsize=4096)
def project_relpath(filename: str, root: Path) -> str | None:
    """The canonical path of filename relative to root when it is the project's own code, else None.

    Links are resolved first: an editable install may serve the project through a tree of
    symlinks, and a fix must name the file that really holds the code. root must be resolved.
    Remembered: each failure's traceback passes through the same thirty-odd files (pytest's and
    pluggy's own), and resolving them again cost most of what recording a failure costs.
    """
    if not filename or filename.startswith("<"):
        return None
    path = os.path.realpath(os.path.join(root, filename))
    if "site-packages" in path or "dist-packages" in path or path.startswith(_LIBRARY_ROOTS):
        return None
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return None


#: "statement": a module-level statement that changes a name without binding it (reads.changers),
#: never among a file's definitions.
Kind = Literal["function", "assignment", "augmented", "statement"]


@dataclass(frozen=True)
class Definition:
    qualname: str  # Class.method, function, outer.inner; VAT, Shop.RATE for assignments
    start: int  # first line, decorators included
    end: int
    body_start: int  # first line of the body (an assignment's own first line)
    method: bool = False  # defined directly in a class body (an assignment: a lambda's only)
    kind: Kind = "function"
    lambdas: bool = False  # an assignment whose value holds a lambda: code that runs when called

    @property
    def runs(self) -> bool:
        """Whether code of this definition can be called: a function, or a lambda's assignment."""
        return self.kind == "function" or self.lambdas


_OVERLOAD = re.compile(r"\s*@\s*(?:typing\.|t\.|typing_extensions\.)?overload\b")


@dataclass(frozen=True)
class SourceFile:
    """One project file as it was read at the start of the repair; never re-read."""

    path: str  # relative to the root
    data: bytes

    @cached_property
    def encoding(self) -> str:
        import io
        import tokenize

        encoding, _ = tokenize.detect_encoding(io.BytesIO(self.data).readline)
        return encoding

    @cached_property
    def text(self) -> str:
        return self.data.decode(self.encoding, "replace").removeprefix("\ufeff")

    def encode(self, text: str) -> bytes:
        """New text of this file in its own encoding (and BOM)."""
        return text.encode(self.encoding)  # "utf-8-sig" when the file has a BOM

    @cached_property
    def lines(self) -> list[str]:
        # The newlines Python's tokenizer knows, not str.splitlines() (which also splits at form
        # feeds and other separators that may sit inside a string literal).
        lines = re.split(r"\r\n|\r|\n", self.text)
        return lines[:-1] if lines and not lines[-1] else lines

    @cached_property
    def definitions(self) -> tuple[Definition, ...]:
        try:
            tree = syntax.parse(self.data)
        except (SyntaxError, ValueError):
            return ()
        found: list[Definition] = []

        def walk(nodes: list[ast.stmt], prefix: str, scope: str) -> None:
            for index, node in enumerate(nodes):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    qualname = f"{prefix}{node.name}"
                    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    end = node.end_lineno or node.lineno
                    body = node.body[0].lineno
                    found.append(Definition(qualname, start, end, body, scope == "class"))
                    walk(node.body, qualname + ".", "function")
                elif isinstance(node, ast.ClassDef):
                    walk(node.body, f"{prefix}{node.name}.", "class")
                elif scope != "function" and _alone(nodes, index):
                    binding = _binding(node, prefix, scope == "class")
                    if binding is not None:
                        found.append(binding)
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    # if/for/while/with/try/match: every statement list they hold, at this level
                    walk(_nested_statements(node), prefix, scope)

        walk(tree.body, "", "module")
        return tuple(found)

    def find(self, qualname: str, kind: Kind | None = None) -> Definition | None:
        """The first definition of qualname: a function or an assignment, never an augmented
        assignment unless kind asks for one; of a function with ``@overload`` stubs, the
        implementation (arrow's ``ArrowFactory.get``: the prompt showed, and a fix replaced,
        its first stub)."""
        found = [
            definition
            for definition in self.definitions
            if definition.qualname == qualname
            and (definition.kind == kind if kind else definition.kind != "augmented")
        ]
        real = [definition for definition in found if not self.overload(definition)]
        return (real or found)[0] if found else None

    def overload(self, definition: Definition) -> bool:
        """Whether a function is a ``typing.overload`` stub (its decorators say so)."""
        head = self.lines[definition.start - 1 : definition.body_start - 1]
        return any(_OVERLOAD.match(line) for line in head)

    @cached_property
    def classes(self) -> dict[str, tuple[int, int]]:
        """Each class's qualified name and its first (decorators included) and last line."""
        try:
            tree = syntax.parse(self.data)
        except (SyntaxError, ValueError):
            return {}
        found: dict[str, tuple[int, int]] = {}
        todo: list[tuple[str, ast.AST]] = [("", tree)]
        while todo:
            prefix, node = todo.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    found.setdefault(prefix + child.name, (start, child.end_lineno or start))
                    todo.append((f"{prefix}{child.name}.", child))
        return found

    def class_source(self, qualname: str) -> str | None:
        """The source of the class called qualname (a fix may give a class whole)."""
        lines = self.classes.get(qualname)
        return "\n".join(self.lines[lines[0] - 1 : lines[1]]) + "\n" if lines else None

    def enclosing(self, lineno: int) -> Definition | None:
        """The innermost function (or module- or class-level assignment) whose lines hold
        lineno."""
        best: Definition | None = None
        for definition in self.definitions:
            inside = definition.start <= lineno <= definition.end
            inside = inside and definition.kind != "augmented"
            if inside and (best is None or definition.start >= best.start):
                best = definition
        return best

    def source_of(self, definition: Definition) -> str:
        return "\n".join(self.lines[definition.start - 1 : definition.end]) + "\n"


def _binding(node: ast.stmt, prefix: str, in_class: bool) -> Definition | None:
    """The definition an assignment to one plain name makes, or None."""
    kind: Kind = "assignment"
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    elif isinstance(node, ast.AugAssign):
        target, value, kind = node.target, node.value, "augmented"
    else:
        return None
    if not isinstance(target, ast.Name):
        return None
    lambdas = any(isinstance(child, ast.Lambda) for child in ast.walk(value))
    end = node.end_lineno or node.lineno
    method = in_class and lambdas
    return Definition(f"{prefix}{target.id}", node.lineno, end, node.lineno, method, kind, lambdas)


def _alone(nodes: list[ast.stmt], index: int) -> bool:
    """Whether no other statement shares a line with nodes[index] (``a = 1; b = 2``)."""
    node = nodes[index]
    before = nodes[index - 1] if index else None
    after = nodes[index + 1] if index + 1 < len(nodes) else None
    return (before is None or (before.end_lineno or before.lineno) < node.lineno) and (
        after is None or after.lineno > (node.end_lineno or node.lineno)
    )


def _nested_statements(node: ast.AST) -> list[ast.stmt]:
    statements: list[ast.stmt] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            statements.append(child)
        elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
            statements.extend(child.body)
    return statements


class ProjectFiles:
    """Reads each project file once, on first use, and keeps its bytes for the whole repair.

    overlay holds files as changes already made in memory left them (``caretaker run`` fixes one
    finding after another on top of the last fix): they are read from there, not from disk."""

    def __init__(self, root: Path, overlay: Mapping[str, bytes] | None = None) -> None:
        self.root = root
        self._files: dict[str, SourceFile | None] = {
            rel: SourceFile(rel, data) for rel, data in (overlay or {}).items()
        }

    def get(self, rel: str) -> SourceFile | None:
        """The file at rel under the root; None when it cannot be read or lies outside the root
        (an absolute path, ``..``, a link that leads out): nothing outside is ever read."""
        if rel not in self._files:
            self._files[rel] = None
            path = self.root / rel
            candidate = PurePosixPath(rel)
            if rel and not candidate.is_absolute() and ".." not in candidate.parts:
                try:
                    path.resolve().relative_to(self.root.resolve())
                    self._files[rel] = SourceFile(rel, path.read_bytes())
                except (OSError, ValueError):
                    pass
        return self._files[rel]


@dataclass(frozen=True)
class TestFiles:
    """Test files: those pytest collected tests from, conftests, python_files globs, and the
    other modules of a ``tests`` (or ``test``) folder that holds collected test files: the
    helpers and data the tests import (``tests/utils.py``'s ``assert_datetime_equality``,
    ``tests/base.py``'s ``User``) are the specification too, never code a fix may change."""

    __test__ = False  # not a test class, whatever pytest's python_classes say

    collected: frozenset[str]
    patterns: tuple[str, ...] = ("test_*.py", "*_test.py")

    def __contains__(self, rel: object) -> bool:
        if not isinstance(rel, str):
            return False
        name = PurePosixPath(rel).name
        return (
            rel in self.collected
            or name == "conftest.py"
            or any(fnmatch(name, pattern) for pattern in self.patterns)
            or self._in_tests_folder(rel)
        )

    def _in_tests_folder(self, rel: str) -> bool:
        parts = PurePosixPath(rel).parts[:-1]
        for index, part in enumerate(parts):
            if part in ("tests", "test"):
                folder = "/".join(parts[: index + 1]) + "/"
                if any(path.startswith(folder) for path in self.collected):
                    return True
        return False
