"""Checks: whether an edit makes a test's asserts demand less than they did.

The part of the weakening guard (weakening.py) that reads checks: asserts and assert* calls,
paired before and after the edit (the same check, then the same shape with other constants, then
whatever is left). A check removed, loosened, turned into a no-op or made conditional is refused
with a sentence; a check that expects something else is a judgement call, reported as a notice.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeGuard

from pytest_caretaker.guard.compares import lossy, same_by_walrus, self_compared
from pytest_caretaker.guard.nodes import CONDITIONAL, NESTED, called_name, shorten


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
    """Why new checks less than old (a refusal sentence), or None; changed checks are noticed."""
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


# -- no-ops: checks that cannot fail -----------------------------------------------------------


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
    if _bool_op(node, ast.Or):
        return any(_no_op(value) for value in node.values)
    if _bool_op(node, ast.And):
        return all(_no_op(value) for value in node.values)
    if same_by_walrus(node):
        return True
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


def _bool_op(node: ast.AST, op: type[ast.boolop]) -> TypeGuard[ast.BoolOp]:
    return isinstance(node, ast.BoolOp) and isinstance(node.op, op)


# -- loosened: a check paired with one that demands less ---------------------------------------


def loosened(old: ast.AST, new: ast.AST) -> str | None:
    """How the expression new demands less than old (a sentence fragment), or None."""
    return _loosened(_check(old, False), _check(new, False))


def _loosened(old: _Check, new: _Check) -> str | None:
    """How new checks less than old (a sentence fragment), or None when it is just different."""
    if _no_op(new.node) and not _no_op(old.node):
        return f"turns the check `{old.text}` into `{new.text}`, which cannot fail"
    for loosening in _LOOSENINGS:
        reason = loosening(old, new)
        if reason is not None:
            return reason
    return None


def _accepts_more(old: _Check, new: _Check) -> str | None:
    """An `or` where there was none, or with more alternatives."""
    o, n = old.node, new.node
    if _bool_op(n, ast.Or) and (not _bool_op(o, ast.Or) or len(n.values) > len(o.values)):
        return f"loosens `{old.text}` to `{new.text}`, which accepts more outcomes"
    return None


def _drops_condition(old: _Check, new: _Check) -> str | None:
    """An `and` with fewer conditions (a single condition is one)."""
    o, n = old.node, new.node
    if _bool_op(o, ast.And):
        kept = len(n.values) if _bool_op(n, ast.And) else 1
        if kept < len(o.values):
            return f"drops a condition: `{old.text}` becomes `{new.text}`"
    return None


_STRICT = (ast.Eq, ast.Is)


def _weakens_comparison(old: _Check, new: _Check) -> str | None:
    """A comparison replaced by something else, shortened, or == and is turned into others."""
    o, n = old.node, new.node
    if not isinstance(o, ast.Compare):
        return None
    if _bool_op(n, ast.And) and any(ast.dump(v) == ast.dump(o) for v in n.values):
        return None  # the same comparison and more: stricter
    if not isinstance(n, ast.Compare):
        return f"replaces the comparison `{old.text}` with the weaker `{new.text}`"
    if len(n.ops) < len(o.ops):
        return f"drops a comparison: `{old.text}` becomes `{new.text}`"
    for before, after in zip(o.ops, n.ops, strict=False):
        if isinstance(before, _STRICT) and not isinstance(after, _STRICT):
            return f"weakens `{old.text}` to `{new.text}`"
    return None


def _replaces_call(old: _Check, new: _Check) -> str | None:
    """An assert* call replaced by another, given fewer arguments, or traded for an assert."""
    o, n = old.node, new.node
    if isinstance(o, ast.Call) and isinstance(n, ast.Call):
        if called_name(o.func) != called_name(n.func):
            return f"replaces `{old.text}` with the weaker `{new.text}`"
        if len(n.args) < len(o.args):
            return f"drops an argument: `{old.text}` becomes `{new.text}`"
    if isinstance(o, ast.Call) != isinstance(n, ast.Call):
        return f"replaces `{old.text}` with `{new.text}`"
    return None


def _compares_less(old: _Check, new: _Check) -> str | None:
    """The same comparison of less: bool(a) == bool(b), f(x) == f(y) (compares.py)."""
    return lossy(old.node, new.node) or self_compared(old.node, new.node)


#: In the order they are tried: the first that applies names the loosening.
_LOOSENINGS: tuple[Callable[[_Check, _Check], str | None], ...] = (
    _accepts_more,
    _drops_condition,
    _weakens_comparison,
    _replaces_call,
    _compares_less,
)
