"""Shadows: whether an edit to test code puts something else where the code under test was.

The part of the weakening guard (weakening.py) that reads names: a function of test code that
now binds, inside itself, a name it used to read from its module (``price = lambda n: 6``,
``from fake import price``, ``def price(n): ...``), and, when the file is known, an import or a
new function that rebinds a name the file imports. Either way the test runs a stand-in, not the
code it tested.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from pytest_caretaker import syntax
from pytest_caretaker.guard.names import aliases
from pytest_caretaker.guard.nodes import NESTED, Function
from pytest_caretaker.results import Edit

_WHY = "so the test runs a stand-in instead of the code it tested"


def shadows(name: str, old: Function | None, new: Function) -> str | None:
    """A name old read from its module that new binds inside itself (a refusal sentence)."""
    if old is None:
        return None
    free = _read(old) - _bound(old)
    rebound = sorted(free & _bound(new))
    if rebound:
        where = "where it was read from the module"
        return f"the fix rebinds {rebound[0]} inside {name}, {where}, {_WHY}"
    return None


def _read(function: ast.AST) -> set[str]:
    return {
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _bound(function: Function) -> set[str]:
    """Names the function binds: assignments, imports, nested defs and classes, parameters."""
    bound = {
        n.id
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    }
    bound |= {alias for alias, target in aliases(function).items() if alias != target}
    bound |= {
        n.name
        for n in ast.walk(function)
        if isinstance(n, (*NESTED[:2], ast.ClassDef)) and n is not function
    }
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return bound | {a.arg for a in every}


def rebinds_import(edit: Edit, module: Callable[[str], str | None] | None) -> str | None:
    """An import or new function in a test file that rebinds a name the file imports."""
    text = module(edit.path) if module is not None else None
    if text is None or edit.kind == "replace":
        return None
    try:
        tree, added = syntax.parse(text), syntax.parse(edit.source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    top = ast.Module([s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))], [])
    imported = aliases(top)
    if edit.kind == "import":
        bound = aliases(added)
        changed = sorted(n for n, target in bound.items() if imported.get(n, target) != target)
    else:
        defined = [s.name for s in added.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))]
        changed = sorted(n for n in defined if n in imported)
    if not changed:
        return None
    return (
        f"the fix rebinds {changed[0]} in {edit.path}, which the file imports from "
        f"{imported[changed[0]].rsplit('.', 1)[0]}, {_WHY}"
    )
