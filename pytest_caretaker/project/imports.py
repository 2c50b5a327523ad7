"""Which test files import a project file, directly or through other project modules: a fix of
a function can break every test that imports it, in any module (regression.affected).

Read from the code, not traced: every ``import`` and ``from … import`` of a file (in functions
too), resolved as reads.module_file resolves them (next to the file for a relative import, else
under the root or src/), plus the importing file's own folder for a plain ``import sibling``
(pytest puts a test file's folder on sys.path). A package's ``__init__.py`` counts as imported
with any of its modules. Dynamic imports (``importlib``) are not seen.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable
from pathlib import PurePosixPath

from pytest_caretaker import syntax
from pytest_caretaker.project.reads import Files, module_file


def imported(path: str, files: Files) -> set[str]:
    """The project files that the file at path imports."""
    source = files(path)
    if source is None:
        return set()
    try:
        tree = syntax.parse(source.data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [module] if module else []
            names += [f"{module}.{alias.name}" if module else alias.name for alias in node.names]
            for name in names:
                found |= _resolved(path, name, node.level, files)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found |= _resolved(path, alias.name, 0, files)
    found.discard(path)
    return found


def _resolved(path: str, name: str, level: int, files: Files) -> set[str]:
    """The files of name and of the packages on its way (``a.b.c``: a, a.b and a.b.c)."""
    parts = name.split(".")
    found: set[str] = set()
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        rel = module_file(path, prefix, level, files)
        if rel is None and not level:  # a sibling of the importing file
            folder = PurePosixPath(path).parent
            rel = module_file((folder / "x.py").as_posix(), prefix, 1, files)
        if rel is not None:
            found.add(rel)
    return found


def importers(changed: Collection[str], candidates: Iterable[str], files: Files) -> set[str]:
    """Of the candidate files, those that import one of changed, directly or through other
    project files."""
    targets = set(changed)
    graph: dict[str, set[str]] = {}

    def reaches(start: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            here = todo.pop()
            if here not in graph:
                graph[here] = imported(here, files)
            for there in graph[here]:
                if there in targets:
                    return True
                if there not in seen:
                    seen.add(there)
                    todo.append(there)
        return False

    return {candidate for candidate in candidates if candidate in targets or reaches(candidate)}
