"""Strictness: how much a test's checks demand, compared before and after an edit.

The part of the weakening guard (weaken.py) that reads checks: asserts and assert* calls (removed,
loosened, made no-ops or conditional), tolerances of approximate comparisons, and parametrized
cases. Each function returns a refusal sentence or None, and adds notices for changes that are a
judgement call (what a check expects).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

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
CONDITIONAL: tuple[type[ast.AST], ...] = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.Try)
CONDITIONAL += (ast.Match, ast.IfExp, *([ast.TryStar] if hasattr(ast, "TryStar") else []))
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def shorten(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 80 else text[:77] + "..."


# -- tolerances and parametrization ----------------------------------------------------------


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


def tolerances(name: str, old: ast.AST | None, new: ast.AST) -> str | None:
    old_calls, new_calls = _calls(old, APPROX), _calls(new, APPROX)
    if len(new_calls) > len(old_calls):
        return (
            f"the fix adds {called_name(new_calls[-1].func)} to {name}, which compares "
            "approximately where the test compared exactly"
        )
    for before, after in zip(old_calls, new_calls, strict=False):
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


def _cases(decorator: ast.Call) -> ast.AST | None:
    if len(decorator.args) >= 2:
        return decorator.args[1]
    return next((k.value for k in decorator.keywords if k.arg == "argvalues"), None)


def parametrize(
    name: str,
    old: ast.FunctionDef | ast.AsyncFunctionDef | None,
    new: ast.FunctionDef | ast.AsyncFunctionDef,
    notices: list[str],
) -> str | None:
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
                    f"the fix drops {dropped} parametrized case{'s' if dropped > 1 else ''} "
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


def _is_parametrize(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and called_name(node.func) == "parametrize"


# -- checks: asserts and assert* calls -------------------------------------------------------


@dataclass(frozen=True)
class _Check:
    node: ast.AST  # the assert's test, or the assert* call
    key: str  # exact structure
    shape: str  # structure with constants masked
    conditional: bool  # under an if, loop, try, match, or a nested function

    @property
    def text(self) -> str:
        return shorten(self.node)


class _Mask(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant(value="?")


def _checks_of(function: ast.AST | None) -> list[_Check]:
    found: list[_Check] = []

    def visit(node: ast.AST, conditional: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Assert):
                found.append(_check(child.test, conditional))
            elif isinstance(child, ast.Expr) and isinstance(child.value, ast.Call):
                callee = called_name(child.value.func) or ""
                if callee.startswith("assert"):
                    found.append(_check(child.value, conditional))
            visit(child, conditional or isinstance(child, CONDITIONAL + NESTED))

    if function is not None:
        visit(function, False)
    return found


def _check(node: ast.AST, conditional: bool) -> _Check:
    masked = _Mask().visit(copy.deepcopy(node))
    return _Check(node, ast.dump(node), ast.dump(masked), conditional)


def checks(
    name: str,
    old: ast.AST | None,
    new: ast.AST,
    notices: list[str],
) -> str | None:
    before, after = _checks_of(old), _checks_of(new)
    unmatched_new = list(after)
    unmatched_old: list[_Check] = []
    for check in before:
        same = next((c for c in unmatched_new if c.key == check.key), None)
        if same is None:
            unmatched_old.append(check)
            continue
        unmatched_new.remove(same)
        if same.conditional and not check.conditional:
            return (
                f"the fix makes the check `{check.text}` of {name} conditional, so it may never run"
            )
    for check in unmatched_old:
        pair = next((c for c in unmatched_new if c.shape == check.shape), None)
        if pair is None and unmatched_new:
            pair = unmatched_new[0]
        if pair is None:
            return f"the fix removes the check `{check.text}` from {name}; every check must stay"
        unmatched_new.remove(pair)
        reason = _loosened(check, pair)
        if reason is not None:
            return f"the fix {reason} in {name}; keep the check as strict as it was"
        if pair.conditional and not check.conditional:
            return (
                f"the fix makes the check `{check.text}` of {name} conditional, so it may never run"
            )
        notices.append(f"changes what {name} checks: `{check.text}` → `{pair.text}`")
    return None


def _truthy_constant(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        return bool(getattr(node, "elts", None) or getattr(node, "keys", None))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return isinstance(node.operand, ast.Constant) and not node.operand.value
    return False


def _no_op(node: ast.AST) -> bool:
    """A check that cannot fail: assert True, assert x or True, assert (x, "msg"), x == x."""
    if _truthy_constant(node):
        return True
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return any(_no_op(value) for value in node.values)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return all(_no_op(value) for value in node.values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        same = ast.dump(node.left) == ast.dump(node.comparators[0])
        return same and isinstance(node.ops[0], (ast.Eq, ast.Is, ast.GtE, ast.LtE))
    if isinstance(node, ast.Call) and called_name(node.func) in ("assertTrue", "assert_"):
        return bool(node.args) and _no_op(node.args[0])
    if isinstance(node, ast.Call) and len(node.args) >= 2:
        called = called_name(node.func) or ""
        if called in _SAME_IS_TRUE:
            return ast.dump(node.args[0]) == ast.dump(node.args[1])
    return False


#: Two-argument checks that cannot fail when both arguments are the same expression.
_SAME_IS_TRUE = frozenset(
    {"assertEqual", "assertEquals", "assertIs", "assertAlmostEqual", "assertCountEqual"}
    | {"assertGreaterEqual", "assertLessEqual", "assertIn", "assert_equal", "assert_allclose"}
    | {"assert_array_equal", "assert_almost_equal", "assertDictEqual", "assertListEqual"}
)


_STRICT = (ast.Eq, ast.Is)


def _loosened(old: _Check, new: _Check) -> str | None:
    """How new checks less than old (a sentence fragment), or None when it is just different."""
    o, n = old.node, new.node
    if _no_op(n) and not _no_op(o):
        return f"turns the check `{old.text}` into `{new.text}`, which cannot fail"
    if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or):
        if not (isinstance(o, ast.BoolOp) and isinstance(o.op, ast.Or)):
            return f"loosens `{old.text}` to `{new.text}`, which accepts more outcomes"
        if len(n.values) > len(o.values):
            return f"loosens `{old.text}` to `{new.text}`, which accepts more outcomes"
    if isinstance(o, ast.BoolOp) and isinstance(o.op, ast.And):
        kept = len(n.values) if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.And) else 1
        if kept < len(o.values):
            return f"drops a condition: `{old.text}` becomes `{new.text}`"
    if isinstance(o, ast.Compare):
        if not isinstance(n, ast.Compare):
            return f"replaces the comparison `{old.text}` with the weaker `{new.text}`"
        if len(n.ops) < len(o.ops):
            return f"drops a comparison: `{old.text}` becomes `{new.text}`"
        for before, after in zip(o.ops, n.ops, strict=False):
            if isinstance(before, _STRICT) and not isinstance(after, _STRICT):
                return f"weakens `{old.text}` to `{new.text}`"
    if isinstance(o, ast.Call) and isinstance(n, ast.Call):
        if called_name(o.func) != called_name(n.func):
            return f"replaces `{old.text}` with the weaker `{new.text}`"
        if len(n.args) < len(o.args):
            return f"drops an argument: `{old.text}` becomes `{new.text}`"
    if isinstance(o, ast.Call) != isinstance(n, ast.Call):
        return f"replaces `{old.text}` with `{new.text}`"
    return None
