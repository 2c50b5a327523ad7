"""Compares: comparisons that look as strict as before but tell fewer outcomes apart.

Loosenings the weakening guard's checks (checks.py) and helpers (helpers.py) look for besides the
plain ones: an operand wrapped in a conversion that loses what was compared (``a == b`` becomes
``bool(a) == bool(b)``, ``len(a) == len(b)``, ``sorted(a) == sorted(b)``), a comparison of the
code under test with itself (``f(x) == 6`` becomes ``f(x) == f(x_reordered)``), and a name
compared with the walrus that binds it (``(m := f()) == m``), which cannot fail.
"""

from __future__ import annotations

import ast

from pytest_caretaker.guard.nodes import shorten

#: Calls that map many values to one: comparing their results tells fewer values apart.
LOSSY = frozenset({"bool", "len", "type", "set", "frozenset", "sorted", "abs", "round", "int"})
LOSSY |= {"hash", "id", "callable", "any", "all"}


def same_by_walrus(node: ast.AST) -> bool:
    """`(m := f()) == m`: the name is compared with the value just bound to it."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return False
    left, right = node.left, node.comparators[0]
    return (
        isinstance(node.ops[0], (ast.Eq, ast.Is, ast.GtE, ast.LtE))
        and isinstance(left, ast.NamedExpr)
        and isinstance(right, ast.Name)
        and left.target.id == right.id
    )


def lossy(old: ast.AST, new: ast.AST) -> str | None:
    """An operand of old's comparison, wrapped in new in a call that loses information."""
    if not isinstance(old, ast.Compare) or not isinstance(new, ast.Compare):
        return None
    olds, news = [old.left, *old.comparators], [new.left, *new.comparators]
    for was, now in zip(olds, news, strict=False):
        wrapper = _wrapper(now)
        if wrapper is None or _wrapper(was) == wrapper:
            continue
        if isinstance(now, ast.Call) and any(ast.dump(was) == ast.dump(a) for a in now.args):
            return (
                f"compares {shorten(now)} where it compared {shorten(was)}: {wrapper}() tells "
                "fewer values apart"
            )
    return None


def _wrapper(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in LOSSY:
        return node.func.id
    return None


def self_compared(old: ast.AST, new: ast.AST) -> str | None:
    """new compares a call with a call of the same function; old did not."""
    if _same_callee(new) is None or _same_callee(old) is not None:
        return None
    return (
        f"compares {shorten(new)}, the code under test with itself, which passes whatever "
        f"{_same_callee(new)} returns"
    )


def _same_callee(node: ast.AST) -> str | None:
    """The function called on both sides of a comparison (f in `f(x) == f(y)`), or None."""
    if not isinstance(node, ast.Compare) or len(node.comparators) != 1:
        return None
    left, right = node.left, node.comparators[0]
    if not (isinstance(left, ast.Call) and isinstance(right, ast.Call)):
        return None
    if ast.dump(left.func) != ast.dump(right.func) or _wrapper(left) is not None:
        return None
    return ast.unparse(left.func)
