"""Calls: what the failing test's own code names, as evidence of what it tests.

The function a test calls by name is most often the function under test, which the spectrum cannot
tell from its helpers when every test runs them all (``called_by``, ``named``); a function it calls
that only hands over to another stands for that one (``callees``); an attribute it assigns names a
definition that may never have run (``members``).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Mapping, Sequence

from pytest_caretaker import syntax
from pytest_caretaker.project.files import ProjectFiles, TestFiles

#: The functions the failing tests call by name whose own calls follow them, and those at most.
CALLERS = 3
CALLEES = 4


def called_by(
    frames: Mapping[tuple[str, str], list[int]], sources: ProjectFiles, tests: TestFiles
) -> tuple[frozenset[str], frozenset[str]]:
    """The names the failing tests' own functions (the traceback's test frames) call, and the
    attributes they assign (``v.major = 9`` runs a property's setter, or should)."""
    names: set[str] = set()
    stores: set[str] = set()
    for path, qualname in frames:
        called, stored, _ = _names_in(path, qualname, sources) if path in tests else ((), (), 0)
        names.update(called)
        stores.update(stored)
    return frozenset(names), frozenset(stores)


def callees(
    calls: Sequence[tuple[str, str]], ran: Sequence[tuple[str, str]], sources: ProjectFiles
) -> list[tuple[str, str]]:
    """calls, then the functions that ran that those of the first CALLERS of them that only
    hand over (one statement, a docstring aside: ``from_current`` is ``return
    cls.from_exc_info(*sys.exc_info())``) call, at most CALLEES, in ran's order. What a function
    of its own calls is its helpers, which the spectrum ranks (a converter's ``__init__`` calls
    the whole setup)."""
    names: set[str] = set()
    for path, qualname in calls[:CALLERS]:
        called, _, statements = _names_in(path, qualname, sources)
        names.update(called if statements == 1 else ())
    found = [key for key in ran if key not in calls and key[1].rpartition(".")[2] in names]
    return [*calls, *found[:CALLEES]]


def _names_in(path: str, qualname: str, sources: ProjectFiles) -> tuple[set[str], set[str], int]:
    """The names a definition calls, the attributes it assigns, and its body's statements (a
    docstring aside)."""
    names: set[str] = set()
    stores: set[str] = set()
    source = sources.get(path)
    definition = source.find(qualname) if source is not None else None
    if source is None or definition is None:
        return names, stores, 0
    try:
        tree = syntax.parse(textwrap.dedent(source.source_of(definition)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return names, stores, 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            names.add(node.func.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            names.add(node.func.attr)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            stores.add(node.attr)
    head = tree.body[0] if isinstance(tree, ast.Module) and tree.body else None
    body = head.body if isinstance(head, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
    docstring = (
        body[:1] and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    )
    return names, stores, len(body) - bool(docstring)


def members(
    ranked: Sequence[tuple[str, str]], stored: frozenset[str], sources: ProjectFiles
) -> list[tuple[str, str]]:
    """The attributes the failing tests assign, as definitions of a class whose methods ran,
    that did not run themselves: ``v.build = x`` on a property with no setter fails before any
    of its code runs. (A name they call runs what it names: another class's method of that name
    that did not run was not called.)"""
    found: list[tuple[str, str]] = []
    for path, qualname in ranked:
        owner, source = qualname.rpartition(".")[0], sources.get(path)
        if not owner or source is None:
            continue
        for name in sorted(stored):
            member = (path, f"{owner}.{name}")
            if member not in ranked and member not in found and source.find(member[1]):
                found.append(member)
    return found


def named(qualname: str, called: frozenset[str]) -> bool:
    """Whether a call by one of those names runs qualname (a class's: its __init__)."""
    parts = qualname.split(".")
    constructed = parts[-1] == "__init__" and len(parts) > 1 and parts[-2] in called
    return parts[-1] in called or constructed
