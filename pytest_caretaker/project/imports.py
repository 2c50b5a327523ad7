"""Which test files import a project file, directly or through other project modules: a fix of
a function can break every test that imports it, in any module (regression.affected).

Read from the code, not traced: every ``import`` and ``from … import`` of a file (in functions
too), resolved as reads.module_file resolves them (next to the file for a relative import, else
under the root or src/), plus the importing file's own folder for a plain ``import sibling``
(pytest puts a test file's folder on sys.path). A package's ``__init__.py`` counts as imported
with any of its modules. A test file that is not Python (a doctest text file, pytest's
``--doctest-glob``: ``docs/usage.rst``) imports what its examples import, and what the session's
conftest.py files import: a conftest's ``doctest_namespace`` fixture gives its examples names
(``semver``) with no import in the text, and that namespace is the session's, whichever
conftest filled it. Dynamic imports (``importlib``) are not seen.
"""

from __future__ import annotations

import ast
import doctest
from collections.abc import Collection, Iterable
from pathlib import PurePosixPath

from pytest_caretaker import syntax
from pytest_caretaker.project.files import SourceFile
from pytest_caretaker.project.reads import Files, module_file

_UNPARSABLE = (SyntaxError, ValueError, MemoryError, RecursionError)


def imported(path: str, files: Files) -> set[str]:
    """The project files that the file at path imports."""
    source = files(path)
    if source is None:
        return set()
    found: set[str] = set()
    for node in (node for tree in _code(path, source) for node in ast.walk(tree)):
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


def conftests(paths: Iterable[str], files: Files) -> set[str]:
    """The conftest.py files of the paths' folders and of the folders above them."""
    folders = {folder for path in paths for folder in PurePosixPath(path).parents}
    found = {(folder / "conftest.py").as_posix() for folder in folders}
    return {rel for rel in found if files(rel) is not None}


def _python(path: str) -> bool:
    return path.endswith((".py", ".pyw"))


def _code(path: str, source: SourceFile) -> list[ast.AST]:
    """A Python file's tree; of any other file (a doctest text file), its examples' trees."""
    if _python(path):
        try:
            return [syntax.parse(source.data)]
        except _UNPARSABLE:
            return []
    try:
        examples = doctest.DocTestParser().get_examples(source.text)
    except ValueError:  # not doctest text: it runs no code
        return []
    trees: list[ast.AST] = []
    for example in examples:
        try:
            trees.append(syntax.parse(example.source))
        except _UNPARSABLE:
            continue
    return trees


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


def importers(
    changed: Collection[str],
    candidates: Iterable[str],
    files: Files,
    shared: Collection[str] = (),
) -> set[str]:
    """Of the candidate files, those that import one of changed, directly or through other
    project files; a candidate that is not Python imports the shared files too (the session's
    conftests: see the module's doc)."""
    targets = set(changed)
    graph: dict[str, set[str]] = {}

    def reaches(start: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            here = todo.pop()
            if here not in graph:
                graph[here] = imported(here, files) | (set() if _python(here) else set(shared))
            for there in graph[here]:
                if there in targets:
                    return True
                if there not in seen:
                    seen.add(there)
                    todo.append(there)
        return False

    return {candidate for candidate in candidates if candidate in targets or reaches(candidate)}
