"""Cases: whether an edit drops a test's parametrized cases.

The part of the weakening guard (weakening.py) that reads @pytest.mark.parametrize: a decorator
removed, cases dropped from a literal list, or the list replaced by an expression caretaker cannot
count. Changing a case's values is a judgement call, like changing an expected value: allowed,
and reported as a notice.
"""

from __future__ import annotations

import ast

from pytest_caretaker.guard.nodes import Function, called_name, shorten
from pytest_caretaker.text import plural


def parametrize(
    name: str,
    old: Function | None,
    new: Function,
    notices: list[str],
) -> str | None:
    """Why new runs fewer cases than old (a refusal sentence), or None; changes are noticed."""
    if old is None:
        return None
    olds = [d for d in old.decorator_list if _is_parametrize(d)]
    news = [d for d in new.decorator_list if _is_parametrize(d)]
    if len(news) < len(olds):
        return f"the fix removes a parametrize decorator from {name}, dropping its cases"
    for before, after in zip(olds, news, strict=False):
        assert isinstance(before, ast.Call) and isinstance(after, ast.Call)
        was, now = _cases(before), _cases(after)
        if was is None or now is None or ast.dump(was) == ast.dump(now):
            continue
        if isinstance(was, (ast.List, ast.Tuple)):
            if not isinstance(now, (ast.List, ast.Tuple)):
                return (
                    f"the fix replaces the parametrized cases of {name} with an expression; "
                    "keep the cases as a literal list"
                )
            if len(now.elts) < len(was.elts):
                dropped = len(was.elts) - len(now.elts)
                return (
                    f"the fix drops {plural(dropped, 'parametrized case')} "
                    f"of {name}; every case must still run"
                )
            changed = [
                (a, b)
                for a, b in zip(was.elts, now.elts, strict=False)
                if ast.dump(a) != ast.dump(b)
            ]
            for a, b in changed:
                notices.append(f"changes a case of {name}: {shorten(a)} → {shorten(b)}")
    return None


def _cases(decorator: ast.Call) -> ast.AST | None:
    if len(decorator.args) >= 2:
        return decorator.args[1]
    return next((k.value for k in decorator.keywords if k.arg == "argvalues"), None)


def _is_parametrize(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and called_name(node.func) == "parametrize"
