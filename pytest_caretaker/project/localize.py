"""Localize: rank the functions that may hold the bug.

An assertion failure's traceback ends in the test, while the bug is usually in code the test called.
So the ranking uses two pieces of evidence: the traceback (innermost project frame first) and what
the failing test executed in a traced rerun, ordered by the Ochiai spectrum score against the
passing tests of the same module (code that passing tests also run is less suspicious).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cached_property
from pathlib import Path, PurePosixPath

from pytest_caretaker.record.failure import Failure
from pytest_caretaker.verify.runner import Executed


@dataclass(frozen=True)
class Definition:
    qualname: str  # Class.method, function, outer.inner
    start: int  # first line, decorators included
    end: int
    body_start: int  # first line of the body


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

        def walk(nodes: Iterable[ast.stmt], prefix: str) -> None:
            for node in nodes:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    qualname = f"{prefix}{node.name}"
                    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    end = node.end_lineno or node.lineno
                    found.append(Definition(qualname, start, end, node.body[0].lineno))
                    walk(node.body, qualname + ".")
                elif isinstance(node, ast.ClassDef):
                    walk(node.body, f"{prefix}{node.name}.")
                else:
                    # if/for/while/with/try/match: every statement list they hold, at this level
                    walk(_nested_statements(node), prefix)

        walk(tree.body, "")
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


class Sources:
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


@dataclass(frozen=True)
class Candidate:
    path: str
    qualname: str
    is_test: bool
    score: float
    failed_lines: tuple[int, ...] = ()  # lines of this function in the failing traceback

    @property
    def ref(self) -> str:
        return f"{self.path}::{self.qualname}"


def ochiai(failed: int, passed: int, total_failed: int) -> float:
    if failed == 0 or total_failed == 0:
        return 0.0
    return failed / math.sqrt(total_failed * (failed + passed))


def line_scores(
    failing: Sequence[str], passing: Sequence[str], executed: Mapping[str, Executed]
) -> dict[tuple[str, int], float]:
    """The Ochiai score of every (path, line) the failing tests executed."""

    def counts(nodeids: Sequence[str]) -> dict[tuple[str, int], int]:
        found: dict[tuple[str, int], int] = {}
        for nodeid in nodeids:
            run = executed.get(nodeid)
            for path, lines in run.lines.items() if run is not None else ():
                for line in lines:
                    found[(path, line)] = found.get((path, line), 0) + 1
        return found

    failed = counts(failing)
    passed = counts(passing)
    total_failed = sum(1 for nodeid in failing if nodeid in executed)
    return {key: ochiai(hits, passed.get(key, 0), total_failed) for key, hits in failed.items()}


def localize(
    failure: Failure,
    failing: Sequence[str],
    executed: Mapping[str, Executed],
    passing: Sequence[str],
    sources: Sources,
    tests: TestFiles,
) -> tuple[Candidate, ...]:
    """Rank functions: traceback frames innermost first, then executed code by suspiciousness.

    failing are the node ids that fail together (one root cause); passing the tests that serve as
    the spectrum's passing side.
    """
    failed_lines: dict[tuple[str, str], list[int]] = {}
    order: list[tuple[str, str]] = []
    for frame in reversed(failure.frames):
        source = sources.get(frame.path)
        definition = source.enclosing(frame.lineno) if source is not None else None
        if definition is None:
            continue
        key = (frame.path, definition.qualname)
        if key not in failed_lines:
            order.append(key)
        failed_lines.setdefault(key, []).append(frame.lineno)

    hits_failed = _function_hits(failing, executed, sources)
    hits_passed = _function_hits(passing, executed, sources)
    first_seen: dict[tuple[str, str], int] = {}
    for nodeid in failing:
        for key in _functions_of(executed.get(nodeid), sources):
            first_seen.setdefault(key, len(first_seen))
    total_failed = sum(1 for nodeid in failing if nodeid in executed)

    def score(key: tuple[str, str]) -> float:
        return ochiai(hits_failed.get(key, 0), hits_passed.get(key, 0), total_failed)

    ranked = sorted(first_seen, key=lambda key: (-score(key), first_seen[key]))
    for key in ranked:
        if key not in failed_lines:
            order.append(key)
    return tuple(
        Candidate(
            path=path,
            qualname=qualname,
            is_test=path in tests,
            score=score((path, qualname)),
            failed_lines=tuple(sorted(set(failed_lines.get((path, qualname), ())))),
        )
        for path, qualname in order
    )


def _functions_of(executed: Executed | None, sources: Sources) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if executed is None:
        return found
    for path, first_line in executed.functions:
        source = sources.get(path)
        definition = source.enclosing(first_line) if source is not None else None
        if definition is not None and (path, definition.qualname) not in found:
            found.append((path, definition.qualname))
    return found


def _function_hits(
    nodeids: Sequence[str], executed: Mapping[str, Executed], sources: Sources
) -> dict[tuple[str, str], int]:
    hits: dict[tuple[str, str], int] = {}
    for nodeid in nodeids:
        for key in _functions_of(executed.get(nodeid), sources):
            hits[key] = hits.get(key, 0) + 1
    return hits
