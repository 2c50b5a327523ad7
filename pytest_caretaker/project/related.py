"""Related: what the best-ranked functions point to beyond their own lines.

A wrong constant (``VAT = 0.25``) ran at import, before the test, so no trace shows it: the
module- and class-level assignments the READERS best-ranked functions read (reads.py) become
suspects after them (``constants``). A class's own data is the same kind of code, and a base
class's method reads a subclass's: arrow's ``Locale.describe`` formats with
``JapaneseLocale.timeframes``. So the classes the ranked methods ran on in the failing tests
(the trace's ``self``/``cls``), and their own classes, follow them as class-data suspects
(``classes``), shown as the class's head and its class-level assignments (``class_data``).
An error message that quotes a literal of the project's code names the function holding it
(``quoted``): a message a test caught and compared (``pytest.raises(match=...)``) leaves no
frame of the function that made it in the traceback.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping, Sequence

from pytest_caretaker import syntax
from pytest_caretaker.project.files import ProjectFiles, SourceFile, TestFiles
from pytest_caretaker.project.reads import made_at_import, reads
from pytest_caretaker.results import Executed

Key = tuple[str, str]  # (path, qualname)

#: The best-ranked functions outside tests whose constants become suspects.
READERS = 3
#: Classes whose data become suspects, at most (the prompt shows fewer).
CLASSES = 4
#: Method names a class-data block lists after its data.
METHODS_LISTED = 12
#: A string literal this long (and holding a space) found in the error names its function.
QUOTED_CHARS = 16


def constants(
    order: Sequence[Key], sources: ProjectFiles, tests: TestFiles, frames: frozenset[Key]
) -> list[tuple[Key, Key]]:
    """(constant, the function that reads it) for the assignments the first READERS functions
    outside tests read; and the project's values a failing test's frame reads itself (``assert
    PRE_TRANSLATIONS == [...]``), with what made them at import (made_at_import): no code under
    test ran in such a test, and its bug is there."""
    found: list[tuple[Key, Key]] = []
    readers = 0
    for path, qualname in order:
        source = sources.get(path)
        definition = source.find(qualname) if source is not None else None
        if source is None or definition is None or not definition.runs:
            continue
        if path in tests:
            if (path, qualname) in frames:
                read = [
                    key for key in reads(source, definition, sources.get) if key[0] not in tests
                ]
                made = made_at_import(read, sources.get)
                found += [(key, (path, qualname)) for key in read + made]
            continue
        found += [(key, (path, qualname)) for key in reads(source, definition, sources.get)]
        readers += 1
        if readers == READERS:
            break
    return found


def classes(
    order: Sequence[Key],
    failing: Sequence[str],
    executed: Mapping[str, Executed],
    sources: ProjectFiles,
    tests: TestFiles,
) -> list[tuple[Key, Key]]:
    """(class, a function that ran on it) for the classes the ranked functions ran on in the
    failing tests, then each method's own class, in rank order, at most CLASSES."""
    ran_on: dict[Key, list[Key]] = {}
    for nodeid in failing:
        run = executed.get(nodeid)
        for (path, first), cls in run.classes if run is not None else ():
            source = sources.get(path)
            definition = source.enclosing(first) if source is not None else None
            if definition is not None:
                ran_on.setdefault((path, definition.qualname), []).append(cls)
    found: list[tuple[Key, Key]] = []
    for path, qualname in order:
        source = sources.get(path) if path not in tests else None
        definition = source.find(qualname) if source is not None else None
        if definition is None or not definition.runs:
            continue
        owner = [(path, qualname.rsplit(".", 1)[0])] if definition.method else []
        for cls in [*ran_on.get((path, qualname), ()), *owner]:
            home = sources.get(cls[0]) if cls[0] not in tests else None
            known = any(cls == seen for seen, _ in found)
            if home is not None and not known and class_data(home, cls[1]) is not None:
                found.append((cls, (path, qualname)))
        if len(found) >= CLASSES:
            break
    return found[:CLASSES]


def class_data(source: SourceFile, qualname: str) -> str | None:
    """The class's head (decorators, the ``class`` line), its own class-level assignments in
    file order, then the names of its methods; None for a class of neither."""
    span = source.classes.get(qualname)
    if span is None:
        return None
    prefix = qualname + "."
    own = [
        d
        for d in source.definitions
        if d.qualname.startswith(prefix) and "." not in d.qualname[len(prefix) :]
    ]
    data = [d for d in own if d.kind == "assignment" and not d.lambdas]
    methods = list(dict.fromkeys(d.qualname[len(prefix) :] for d in own if d.method))
    if not data and not methods:
        return None
    lines = source.lines
    head: list[str] = []
    opened = False  # past the `class` keyword: the head ends at the first line ending in ":"
    for line in lines[span[0] - 1 : span[1]]:
        head.append(line)
        opened = opened or line.lstrip().startswith("class ")
        if opened and line.split("#", 1)[0].rstrip().endswith(":"):
            break
    body = [line for d in data for line in lines[d.start - 1 : d.end]]
    first = lines[own[0].start - 1]
    indent = first[: len(first) - len(first.lstrip())]
    more = ", ..." if len(methods) > METHODS_LISTED else ""
    listed = ", ".join(methods[:METHODS_LISTED]) + more
    tail = [f"{indent}# methods: {listed}"] if methods else []
    return "\n".join(head + body + tail) + "\n"


def quoted(message: str, ran: Sequence[Key], sources: ProjectFiles, tests: TestFiles) -> list[Key]:
    """The functions that ran, outside tests, holding a string literal (an f-string's text
    between its fields too) of QUOTED_CHARS or more that the message quotes, at most 3."""
    found: list[Key] = []
    for path, qualname in ran:
        source = sources.get(path) if path not in tests else None
        definition = source.find(qualname) if source is not None else None
        if source is None or definition is None or not definition.runs:
            continue
        lines = range(definition.body_start, definition.end + 1)
        if any(line in lines and text in message for line, text in _literals(source.data)):
            found.append((path, qualname))
            if len(found) == 3:
                break
    return found


@functools.lru_cache(maxsize=64)
def _literals(data: bytes) -> tuple[tuple[int, str], ...]:
    """(line, text) of a module's string literals long enough to quote, docstrings aside."""
    try:
        tree = syntax.parse(data)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ()
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return tuple(
        (node.lineno, node.value.strip())
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and len(node.value.strip()) >= QUOTED_CHARS
        and " " in node.value.strip()
    )
