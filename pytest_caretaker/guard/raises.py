"""Raises: whether an edit lets an expected exception be any exception, or any message.

The part of the weakening guard (weakening.py) that pairs a test's pytest.raises and assertRaises
calls before and after the edit, in order: one that now accepts more exception types (a base
class such as Exception, or a tuple with more types), or no longer checks the message (a dropped
``match=``, assertRaisesRegex traded for assertRaises), is refused. Expecting another exception
instead, or another message, is a judgement call, reported as a notice. A new pytest.raises is
evasions.py's to refuse.
"""

from __future__ import annotations

import ast
import builtins

from pytest_caretaker.guard.nodes import called_name, shorten

_CALLS = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})
_BASES = frozenset({"Exception", "BaseException", "object"})
_REGEX = frozenset({"assertRaisesRegex", "assertRaisesRegexp"})


def raises(name: str, old: ast.AST | None, new: ast.AST, notices: list[str]) -> str | None:
    """Why new expects exceptions more loosely than old (a refusal sentence), or None."""
    olds, news = _calls(old), _calls(new)
    if len(news) < len(olds):
        return (
            f"the fix removes {shorten(olds[-1])} from {name}, so the test no longer checks "
            "that the code raises; keep it"
        )
    for before, after in zip(olds, news, strict=False):
        reason = _widened(name, before, after, notices)
        if reason is not None:
            return reason
    return None


def _calls(function: ast.AST | None) -> list[ast.Call]:
    if function is None:
        return []
    found = [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and called_name(node.func) in _CALLS
    ]
    return sorted(found, key=lambda node: (node.lineno, node.col_offset))


def _widened(name: str, before: ast.Call, after: ast.Call, notices: list[str]) -> str | None:
    was, now = _types(before), _types(after)
    if was is not None and now is not None and was != now:
        if _broader(was, now):
            return (
                f"the fix widens {shorten(before)} to {shorten(after)} in {name}, which accepts "
                f"{', '.join(sorted(now - was))} too; expect the exception the code should raise"
            )
        notices.append(f"changes what {name} expects: {shorten(before)} → {shorten(after)}")
    old_match, new_match = _match(before), _match(after)
    if old_match is not None and new_match is None:
        return (
            f"the fix drops the message check of {shorten(before)} in {name}, so any message "
            "passes; keep the match"
        )
    if old_match is None or new_match is None:
        return None
    if ast.dump(old_match) != ast.dump(new_match):
        notices.append(
            f"changes the message {name} expects: {shorten(old_match)} → {shorten(new_match)}"
        )
    return None


def _broader(was: frozenset[str], now: frozenset[str]) -> bool:
    """now accepts exceptions was did not: a base class, more types, or a builtin parent."""
    added = now - was
    if added & _BASES or was < now:
        return True
    parents = [getattr(builtins, n, None) for n in added]
    children = [getattr(builtins, n, None) for n in was - now]
    return any(
        isinstance(p, type) and isinstance(c, type) and issubclass(c, p) and c is not p
        for p in parents
        for c in children
    )


def _types(call: ast.Call) -> frozenset[str] | None:
    """The exception types a call expects, by name; None when they are not written out."""
    node = call.args[0] if call.args else None
    if node is None:
        node = next((k.value for k in call.keywords if k.arg == "expected_exception"), None)
    if node is None:
        return None
    elements = node.elts if isinstance(node, ast.Tuple) else [node]
    names = [ast.unparse(element) for element in elements]
    return frozenset(names)


def _match(call: ast.Call) -> ast.expr | None:
    """The message check: match= (pytest), the regex argument (assertRaisesRegex)."""
    for keyword in call.keywords:
        if keyword.arg in ("match", "expected_regex"):
            return keyword.value
    if called_name(call.func) in _REGEX and len(call.args) >= 2:
        return call.args[1]
    return None
