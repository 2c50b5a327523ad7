"""Equality: a class whose __eq__ says equal whatever it is compared with.

An object of such a class passes every ``assert result == expected``, so a fix that returns one
forges the verdict. ``always_equal`` reads a class body (``def __eq__``, ``__eq__ = lambda ...``)
or a dict given to ``type()`` (``{"__eq__": lambda *a: True}``): an ``__eq__`` that only returns
true constants or never reads its argument, and an ``__ne__`` that only returns false constants
or never reads its argument, are reported. One that returns only NotImplemented defers to the other
side and is fine.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from pytest_caretaker.guard.nodes import own_nodes

_COMPARISONS = ("__eq__", "__ne__")


def always_equal(node: ast.ClassDef | ast.Dict) -> dict[str, str]:
    """{key: why} for each comparison method of node that does not compare."""
    found: dict[str, str] = {}
    owner = node.name if isinstance(node, ast.ClassDef) else "a class made with type()"
    for method, function in _methods(node):
        fault = _fault(method, function)
        if fault is not None:
            found[f"{method} of {owner}"] = f"a {method} in {owner} that {fault}, so {_SO[method]}"
    return found


_SO = {
    "__eq__": "every comparison with its objects passes",
    "__ne__": "no comparison with its objects can fail",
}


def _methods(node: ast.ClassDef | ast.Dict) -> Iterator[tuple[str, ast.AST]]:
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=False):
            if isinstance(key, ast.Constant) and key.value in _COMPARISONS:
                yield key.value, value
        return
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if statement.name in _COMPARISONS:
                yield statement.name, statement
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name) and target.id in _COMPARISONS:
                    yield target.id, statement.value


def _fault(method: str, function: ast.AST) -> str | None:
    """What is wrong with this __eq__/__ne__, or None when it compares."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return None  # __eq__ = other_function: what it does is elsewhere
    results = _results(function)
    if results and all(_is(r, "NotImplemented") for r in results):
        return None
    wanted = method == "__eq__"
    if results and all(_constant(r) is wanted for r in results):
        return f"always returns {wanted}"
    other = _other(function.args)
    read = {
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    if other is None or other not in read:
        return "never reads what it is compared with"
    return None


def _results(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.expr]:
    if isinstance(function, ast.Lambda):
        return [function.body]
    returns = [node for node in own_nodes(function) if isinstance(node, ast.Return)]
    return [node.value or ast.Constant(None) for node in returns]


def _other(arguments: ast.arguments) -> str | None:
    """The parameter that receives what the object is compared with."""
    positional = [*arguments.posonlyargs, *arguments.args]
    if len(positional) >= 2:
        return positional[1].arg
    if arguments.vararg is not None:
        return arguments.vararg.arg
    return None


def _constant(node: ast.expr) -> bool | None:
    """The truth of a constant result; None when it is computed."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    return None


def _is(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
