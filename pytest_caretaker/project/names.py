"""The names a project module binds at module level, its classes, and where a name it imports
from another project module comes from (re-exports followed). Standard library only."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from pytest_caretaker import syntax
from pytest_caretaker.project.reads import Files, module_file

#: Re-exports followed from the file a reply names to the module that defines a name.
HOPS = 4


@dataclass(frozen=True)
class _Module:
    bound: frozenset[str]  # names bound at module level
    classes: frozenset[str]
    imported: dict[str, tuple[str, int, str]]  # name -> (module, level, its name there)


class ModuleNames:
    """Each file read once."""

    def __init__(self, files: Files) -> None:
        self.files = files
        self._read: dict[str, _Module] = {}

    def bound(self, rel: str) -> frozenset[str]:
        """The names rel binds at module level: definitions, classes, imports, assignments."""
        return self._module(rel).bound

    def classes(self, rel: str) -> frozenset[str]:
        return self._module(rel).classes

    def origin(self, rel: str, name: str) -> tuple[str, str] | None:
        """(file, name there) of the project module rel imports name from, re-exports
        followed: where a definition given under rel's name really is."""
        for _ in range(HOPS):
            found = self._module(rel).imported.get(name)
            if found is None:
                return None
            module, level, original = found
            there = module_file(rel, module, level, self.files)
            if there is None and not level:  # a sibling module of a flat layout
                sibling = (PurePosixPath(rel).parent / "x.py").as_posix()
                there = module_file(sibling, module, 1, self.files)
            if there is None or (there, original) == (rel, name):
                return None
            rel, name = there, original
            if name not in self._module(rel).imported:
                return rel, name
        return None

    def _module(self, rel: str) -> _Module:
        if rel not in self._read:
            source = self.files(rel)
            try:
                tree = syntax.parse(source.text) if source is not None else None
            except (SyntaxError, ValueError, RecursionError):
                tree = None
            body = tree.body if tree is not None else []
            classes = frozenset(n.name for n in body if isinstance(n, ast.ClassDef))
            imported = {
                alias.asname or alias.name: (node.module or "", node.level, alias.name)
                for node in body
                if isinstance(node, ast.ImportFrom)
                for alias in node.names
            }
            self._read[rel] = _Module(frozenset(bound_names(body)), classes, imported)
        return self._read[rel]


def bound_names(body: Sequence[ast.stmt]) -> Iterator[str]:
    """The names statements bind at their own level, in the if/try blocks among them too."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from ((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield from (t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.If, ast.Try)):
            yield from bound_names(node.body)
            for handler in getattr(node, "handlers", ()):
                yield from bound_names(handler.body)
            yield from bound_names(node.orelse)
