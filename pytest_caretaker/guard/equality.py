"""Equality: a comparison method that says yes without comparing.

An object whose ``__eq__`` is always true passes every ``assert result == expected``, so a fix
that returns one forges the verdict; so does a ``__ne__``, ``__lt__``, ``__le__``, ``__gt__`` or
``__ge__`` that says yes without looking. ``comparisons`` reads each such method a piece of code
defines: in a class body (``def __eq__``, ``__eq__ = lambda ...``), in a dict given to ``type()``
(``{"__eq__": lambda *a: True}``), or on its own (the new source of a method an edit replaces,
``Point.__eq__``). Each must compare (mirror.py): every answer it can give is NotImplemented, a
no (a falsy constant), or a comparison of a field of the object with a field of the other, with
the method's own operator; a constant yes only where both are the very same object (``if self is
other: return True``). So ``return other is other``, ``return not False``, ``return True or
other`` are refused whatever else the method reads. ``__hash__`` is not read: it cannot make a
comparison true by itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from pytest_caretaker.guard.mirror import ALLOWED, Function, Sides, decides, identity, no
from pytest_caretaker.guard.nodes import own_nodes, shorten

COMPARISONS = tuple(ALLOWED)
_OPERATORS = {"__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<="}
_OPERATORS |= {"__gt__": ">", "__ge__": ">="}


def comparisons(node: ast.ClassDef | ast.Dict | ast.Module) -> dict[str, str]:
    """{key: why} for each comparison method of node that does not compare."""
    found: dict[str, str] = {}
    if isinstance(node, ast.ClassDef):
        owner = node.name
    else:
        owner = "a class made with type()" if isinstance(node, ast.Dict) else "its class"
    for method, function in _methods(node):
        fault = _fault(method, function)
        if fault is not None:
            found[f"{method} of {owner}"] = (
                f"a {method} in {owner} that {fault}, so `{_OPERATORS[method]}` with its "
                "objects can say yes whatever they hold"
            )
    return found


def is_comparison(key: str) -> bool:
    """Whether a key of reach.py's names a comparison method that does not compare."""
    return key.partition(" of ")[0] in COMPARISONS and " of " in key


def _methods(node: ast.ClassDef | ast.Dict | ast.Module) -> Iterator[tuple[str, ast.AST]]:
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=False):
            if isinstance(key, ast.Constant) and key.value in COMPARISONS:
                yield key.value, value
        return
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if statement.name in COMPARISONS:
                yield statement.name, statement
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id in COMPARISONS:
                    yield target.id, statement.value


def _fault(method: str, function: ast.AST) -> str | None:
    """What is wrong with this comparison method, or None when it compares."""
    if isinstance(function, ast.Constant) and function.value is None:
        return None  # `__eq__ = None`: comparing raises
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return f"is {shorten(function)}, whose answers caretaker cannot read"
    if isinstance(function, ast.AsyncFunctionDef):
        return "is a coroutine function, whose every answer is a coroutine (true)"
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in own_nodes(function)):
        return "is a generator, whose every answer is a generator (true)"
    answers = _answers(function)
    told = [a for a in answers if not (isinstance(a, ast.Name) and a.id == "NotImplemented")]
    if not told:
        return None  # only NotImplemented (or nothing): the other side decides
    if all(isinstance(answer, ast.Constant) for answer in told):
        shown = {ast.unparse(answer) for answer in told}
        return f"always returns {shown.pop()}" if len(shown) == 1 else "returns only constants"
    sides = Sides.of(function)
    if sides is None or not _reads_other(function):
        return "never reads what it is compared with"
    guarded = _same_object_answers(function, sides)
    for answer in answers:
        if no(answer) or id(answer) in guarded or decides(answer, method, sides):
            continue
        return (
            f"answers `{shorten(answer)}`, which is no `{_OPERATORS[method]}` of a field of the "
            "object and one of what it is compared with"
        )
    return None


def _answers(function: Function) -> list[ast.expr]:
    if isinstance(function, ast.Lambda):
        return [function.body]
    returns = [node for node in own_nodes(function) if isinstance(node, ast.Return)]
    return [node.value or ast.Constant(None) for node in returns]


def _same_object_answers(function: Function, sides: Sides) -> set[int]:
    """The constant answers given only when both are the same object (`if self is other`)."""
    found: set[int] = set()
    for node in own_nodes(function):
        if isinstance(node, ast.If) and identity(node.test, sides):
            for statement in node.body:
                if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Constant):
                    found.add(id(statement.value))
    return found


def _reads_other(function: Function) -> bool:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if len(positional) >= 2:
        other = positional[1].arg
    elif arguments.vararg is not None:
        other = arguments.vararg.arg
    else:
        return False
    return any(
        isinstance(n, ast.Name) and n.id == other and isinstance(n.ctx, ast.Load)
        for n in ast.walk(function)
    )
