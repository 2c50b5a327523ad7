"""Tolerances: whether an edit lets an approximate comparison accept more than it did.

The part of the weakening guard (weakening.py) that reads pytest.approx, math.isclose, numpy's
and unittest's almost-equal checks: a new approximate comparison where the test compared exactly,
and a tolerance widened, added or removed (falling back to the library's default). Tolerances
are compared as numbers, so tightening one, or writing it another way, is not refused.
"""

from __future__ import annotations

import ast

from pytest_caretaker.guard.nodes import called_name, shorten

APPROX = frozenset(
    {"approx", "isclose", "allclose", "assert_allclose", "assert_almost_equal"}
    | {"assertAlmostEqual", "assert_array_almost_equal", "assertNotAlmostEqual"}
)
#: Tolerance keywords; True when a larger value is looser, False when a smaller one is.
TOLERANCES = {
    "rel": True,
    "abs": True,
    "rel_tol": True,
    "abs_tol": True,
    "rtol": True,
    "atol": True,
    "delta": True,
    "places": False,
    "decimal": False,
}
#: Tolerances given by position: call name -> {argument index: keyword}.
_POSITIONS = {
    "approx": {1: "rel", 2: "abs"},
    "assertAlmostEqual": {2: "places"},
    "assertNotAlmostEqual": {2: "places"},
    "assert_allclose": {2: "rtol", 3: "atol"},
    "allclose": {2: "rtol", 3: "atol"},
    "isclose": {2: "rtol", 3: "atol"},
    "assert_almost_equal": {2: "decimal"},
    "assert_array_almost_equal": {2: "decimal"},
}
#: What a tolerance is when it is not given (pytest, math, unittest, numpy).
_DEFAULTS = {
    ("approx", "rel"): 1e-6,
    ("approx", "abs"): 1e-12,
    ("isclose", "rel_tol"): 1e-9,
    ("isclose", "abs_tol"): 0.0,
    ("isclose", "rtol"): 1e-5,
    ("isclose", "atol"): 1e-8,
    ("allclose", "rtol"): 1e-5,
    ("allclose", "atol"): 1e-8,
    ("assert_allclose", "rtol"): 1e-7,
    ("assert_allclose", "atol"): 0.0,
    ("assertAlmostEqual", "places"): 7,
    ("assert_almost_equal", "decimal"): 7,
    ("assert_array_almost_equal", "decimal"): 6,
}


def tolerances(name: str, old: ast.AST | None, new: ast.AST) -> str | None:
    """Why new compares more loosely than old (a refusal sentence), or None."""
    old_calls, new_calls = _calls(old, APPROX), _calls(new, APPROX)
    if len(new_calls) > len(old_calls):
        return (
            f"the fix adds {called_name(new_calls[-1].func)} to {name}, which compares "
            "approximately where the test compared exactly"
        )
    for before, after in zip(old_calls, new_calls, strict=False):
        reason = _widened(name, before, after)
        if reason is not None:
            return reason
    return None


def _widened(name: str, before: ast.Call, after: ast.Call) -> str | None:
    """Why after, the same approximate comparison as before, accepts more, or None."""
    call = called_name(after.func) or ""
    was, now = _tolerance_args(before), _tolerance_args(after)
    for keyword in dict.fromkeys([*was, *now]):
        default = _DEFAULTS.get((call, keyword))
        old_value = _number(was[keyword]) if keyword in was else default
        new_value = _number(now[keyword]) if keyword in now else default
        if old_value is None or new_value is None:
            same = keyword in was and keyword in now
            if not (same and ast.dump(was[keyword]) == ast.dump(now[keyword])):
                return (
                    f"the fix changes the tolerance {keyword}= of {shorten(after)} in {name} "
                    "to a value caretaker cannot compare; keep it as it was"
                )
            continue
        looser = new_value > old_value if TOLERANCES[keyword] else new_value < old_value
        if not looser:
            continue
        if keyword not in was:
            return (
                f"the fix adds {keyword}= to {shorten(after)} in {name}, which widens the "
                "tolerance of the comparison"
            )
        if keyword not in now:
            return (
                f"the fix removes {keyword}= from {shorten(before)} in {name}, which falls "
                "back to a looser default"
            )
        return (
            f"the fix widens {keyword}= from {shorten(was[keyword])} to "
            f"{shorten(now[keyword])} in {name}, which loosens the comparison"
        )
    return None


def _calls(function: ast.AST | None, names: frozenset[str]) -> list[ast.Call]:
    if function is None:
        return []
    return [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and called_name(node.func) in names
    ]


def _number(node: ast.AST) -> float | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return float(value) if isinstance(value, (int, float)) else None


def _tolerance_args(call: ast.Call) -> dict[str, ast.expr]:
    name = called_name(call.func) or ""
    given = {k.arg: k.value for k in call.keywords if k.arg in TOLERANCES}
    for index, keyword in _POSITIONS.get(name, {}).items():
        if index < len(call.args):
            given.setdefault(keyword, call.args[index])
    return given
