"""Helpers: whether an edit to a fixture or helper of test code makes the tests that use it weaker.

The part of the weakening guard (weakening.py) that reads the functions of test code that are not
tests: fixtures, parametrize helpers, equality helpers. What they return is what the tests get,
so a helper is refused when it now returns a stand-in (a lambda, a function of its own, a mock),
always returns True, compares less (``a == b`` becomes ``bool(a) == bool(b)``), drops cases from
the list it returns, or computes what it returned as data; a fixture also when the data it returns
changes (literal data it returns: the input of every test that uses it). Other data a helper
returns that changes (an object built with other arguments, a parametrize helper's case) is a
judgement call, like a changed parametrized case, and reported as a notice.
"""

from __future__ import annotations

import ast

from pytest_caretaker.guard.checks import loosened
from pytest_caretaker.guard.evasions import MOCKS
from pytest_caretaker.guard.nodes import NESTED, Function, called_name, own_nodes, shorten
from pytest_caretaker.text import plural

_DISPLAYS = (ast.List, ast.Tuple, ast.Set)


def helpers(name: str, old: Function | None, new: Function, notices: list[str]) -> str | None:
    """Why the helper new gives its tests less than old did (a refusal sentence), or None."""
    if old is None or new.name.startswith("test"):
        return None
    fixture = any(called_name(_callee(d)) == "fixture" for d in new.decorator_list)
    olds, news = _results(old), _results(new)
    stand_in = _stand_in(new, news)
    if stand_in is not None and _stand_in(old, olds) is None:
        return (
            f"the fix makes {name} return the stand-in `{shorten(stand_in)}`, so the tests that "
            "use it no longer test the code"
        )
    computed = [r for r in olds if not isinstance(r, ast.Constant)]
    if computed and news and all(isinstance(r, ast.Constant) and r.value for r in news):
        return (
            f"the fix makes {name} always return {shorten(news[0])}, so every check that "
            "uses it passes"
        )
    for was, now in zip(olds, news, strict=False):
        reason = _compared(name, was, now) or _data(name, was, now, fixture, notices)
        if reason is not None:
            return reason
    return None


def _callee(decorator: ast.expr) -> ast.expr:
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def _results(function: Function) -> list[ast.expr]:
    """What the function returns or yields, its own statements only, in source order."""
    return [
        node.value
        for node in own_nodes(function)
        if isinstance(node, (ast.Return, ast.Yield)) and node.value is not None
    ]


def _stand_in(function: Function, results: list[ast.expr]) -> ast.expr | None:
    """A returned lambda, function defined inside, or mock."""
    defined = {n.name for n in ast.walk(function) if isinstance(n, NESTED) and hasattr(n, "name")}
    defined.discard(function.name)
    for result in results:
        if isinstance(result, ast.Lambda):
            return result
        if isinstance(result, ast.Name) and result.id in defined:
            return result
        if isinstance(result, ast.Call) and called_name(result.func) in MOCKS:
            return result
    return None


def _compared(name: str, was: ast.expr, now: ast.expr) -> str | None:
    """A returned comparison that demands less (an equality helper)."""
    if not isinstance(was, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
        return None
    how = loosened(was, now)
    if how is None:
        return None
    return f"the fix {how} in {name}, and every check that uses it now demands less"


def _data(name: str, was: ast.expr, now: ast.expr, fixture: bool, notices: list[str]) -> str | None:
    """Returned data: cases dropped or computed, a fixture's input changed; else noticed."""
    if ast.dump(was) == ast.dump(now):
        return None
    if isinstance(was, _DISPLAYS) and isinstance(now, _DISPLAYS) and len(now.elts) < len(was.elts):
        dropped = plural(len(was.elts) - len(now.elts), "item")
        return f"the fix drops {dropped} from what {name} returns; every case must still run"
    literal = _literal(was)
    if literal and not _literal(now) and any(isinstance(n, ast.Call) for n in ast.walk(now)):
        return (
            f"the fix makes {name} compute `{shorten(now)}` where it returned the data "
            f"`{shorten(was)}`, so the tests would check the code against itself"
        )
    if fixture and literal and _constants(was) != _constants(now):
        return (
            f"the fix changes the data the fixture {name} returns: `{shorten(was)}` → "
            f"`{shorten(now)}`, which changes the input of every test that uses it; fix the code"
        )
    if _constants(was) != _constants(now):
        notices.append(f"changes what {name} returns: `{shorten(was)}` → `{shorten(now)}`")
    return None


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _constants(node: ast.AST) -> list[str]:
    return sorted(repr(n.value) for n in ast.walk(node) if isinstance(n, ast.Constant))
