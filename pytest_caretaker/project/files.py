"""The project as caretaker reads it: each file once, its definitions, which files are tests,
and which paths are the project's own code at all. Standard library only.
"""

from __future__ import annotations

import ast
import os
import re
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cached_property
from pathlib import Path, PurePosixPath


def _library_roots() -> tuple[str, ...]:
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    roots = {os.path.realpath(sysconfig.get_paths()[key]) for key in keys}
    roots.add(os.path.realpath(Path(__file__).parents[1]))  # caretaker's own package
    return tuple(sorted(roots))


_LIBRARY_ROOTS = _library_roots()


def project_relpath(filename: str, root: Path) -> str | None:
    """The canonical path of filename relative to root when it is the project's own code, else None.

    Links are resolved first: an editable install may serve the project through a tree of
    symlinks, and a fix must name the file that really holds the code. root must be resolved.
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


@dataclass(frozen=True)
class Definition:
    qualname: str  # Class.method, function, outer.inner
    start: int  # first line, decorators included
    end: int
    body_start: int  # first line of the body
    method: bool = False  # defined directly in a class body


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
            tree = ast.parse(self.data)
        except (SyntaxError, ValueError):
            return ()
        found: list[Definition] = []

        def walk(nodes: Iterable[ast.stmt], prefix: str, in_class: bool) -> None:
            for node in nodes:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    qualname = f"{prefix}{node.name}"
                    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    end = node.end_lineno or node.lineno
                    body = node.body[0].lineno
                    found.append(Definition(qualname, start, end, body, in_class))
                    walk(node.body, qualname + ".", False)
                elif isinstance(node, ast.ClassDef):
                    walk(node.body, f"{prefix}{node.name}.", True)
                else:
                    # if/for/while/with/try/match: every statement list they hold, at this level
                    walk(_nested_statements(node), prefix, in_class)

        walk(tree.body, "", False)
        return tuple(found)

    def find(self, qualname: str) -> Definition | None:
        for definition in self.definitions:
            if definition.qualname == qualname:
                return definition
        return None

    def enclosing(self, lineno: int) -> Definition | None:
        """The innermost function whose lines hold lineno."""
        best: Definition | None = None
        for definition in self.definitions:
            inside = definition.start <= lineno <= definition.end
            if inside and (best is None or definition.start >= best.start):
                best = definition
        return best

    def source_of(self, definition: Definition) -> str:
        return "\n".join(self.lines[definition.start - 1 : definition.end]) + "\n"


def _nested_statements(node: ast.AST) -> list[ast.stmt]:
    statements: list[ast.stmt] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            statements.append(child)
        elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
            statements.extend(child.body)
    return statements


class ProjectFiles:
    """Reads each project file once, on first use, and keeps its bytes for the whole repair."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, SourceFile | None] = {}

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
    """Test files: those pytest collected tests from, conftests, and python_files globs."""

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
        )
