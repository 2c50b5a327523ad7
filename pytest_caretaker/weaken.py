"""Weaken: refuse a candidate that makes a test pass by testing less.

Every edit to test code (a test file or a conftest) is compared with the function it replaces.
A candidate is refused when it removes or loosens a check, turns one into a no-op or makes it
conditional, skips or xfails, catches the failure (try/except, suppress, a new pytest.raises),
deletes, renames or returns early from a test, widens a tolerance, drops parametrized cases,
replaces code under test with a stand-in, or edits a conftest hook. Each reason is a sentence
the model can act on.

Changing what a check expects (an expected value, the expression checked) is a judgement call: it
is allowed, since test files are edited only under --heal-scope=tests|any, and reported as a
notice the summary shows prominently.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from pytest_caretaker.edits import Edit

SKIPS = frozenset(
    {"skip", "skipif", "xfail", "importorskip", "SkipTest", "skipIf", "skipUnless"}
    | {"expectedFailure", "skipTest"}
)
CATCHERS = frozenset({"suppress"})
RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})
STAND_INS = frozenset({"setattr", "patch", "MagicMock", "Mock", "AsyncMock", "create_autospec"})
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
_CONDITIONAL: tuple[type[ast.AST], ...] = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.Try)
_CONDITIONAL += (ast.Match, ast.IfExp, *([ast.TryStar] if hasattr(ast, "TryStar") else []))
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class Review:
    refused: str | None = None  # the first reason to refuse the candidate
    notices: tuple[str, ...] = ()  # allowed, but shown prominently: what a test now expects


def is_test_code(path: str, tests: Container[str]) -> bool:
    return path in tests or PurePosixPath(path).name == "conftest.py"


def review(
    edits: Sequence[Edit], tests: Container[str], original: Callable[[Edit], str | None]
) -> Review:
    """Review the edits to test code; original(edit) is the source the edit replaces, if any."""
    notices: list[str] = []
    for edit in edits:
        if not is_test_code(edit.path, tests):
            continue
        reason = _review_edit(edit, original(edit) if edit.kind == "replace" else None, notices)
        if reason is not None:
            return Review(reason, tuple(notices))
    return Review(None, tuple(notices))


def _review_edit(edit: Edit, before: str | None, notices: list[str]) -> str | None:
    conftest = PurePosixPath(edit.path).name == "conftest.py"
    if edit.kind == "import":
        names = _imported_names(edit.source)
        if conftest and any(n == "*" or n.startswith("pytest_") for n in names):
            return (
                f"the fix imports pytest hooks into {edit.path}, which would change how tests "
                "are collected or reported; fix the code, not the test machinery"
            )
        return None
    new = _function(edit.source)
    if new is None:
        return None  # not a single function: the applier refuses it with its own reason
    name = f"{edit.path}::{edit.qualname or new.name}"
    if new.name.startswith("pytest_") and (conftest or new.name in _COLLECTION_HOOKS):
        return (
            f"the fix edits the pytest hook {new.name} in {edit.path}, which controls how tests "
            "are collected, run or reported; fix the code, not the test machinery"
        )
    old = _function(before) if before is not None else None
    return _compare(name, old, new, notices)


_COLLECTION_HOOKS = frozenset({"pytest_generate_tests", "pytest_collection_modifyitems"})


def _compare(
    name: str,
    old: ast.FunctionDef | ast.AsyncFunctionDef | None,
    new: ast.FunctionDef | ast.AsyncFunctionDef,
    notices: list[str],
) -> str | None:
    is_test = new.name.startswith("test") or (old is not None and old.name.startswith("test"))
    if old is not None and new.name != old.name:
        return (
            f"the fix renames {old.name} to {new.name} in {name}; a renamed test is a deleted "
            "test, keep its name"
        )
    if old is not None and _empty(new) and not _empty(old):
        return f"the fix deletes the body of {name}; a test that does nothing proves nothing"
    added = _added(old, new)
    for names, why in (
        (SKIPS, "skips or xfails it, and a skipped test proves nothing"),
        (CATCHERS, "suppresses the exception, which hides the failure instead of fixing it"),
        (RAISES, "expects an exception that was not expected before"),
        (
            STAND_INS,
            "replaces code with a stand-in (monkeypatch.setattr or mock), so the test no "
            "longer tests it",
        ),
    ):
        found = sorted(n for n in names if added.get(n, 0) > 0)
        if found:
            return f"the fix adds {found[0]} to {name}, which {why}"
    if _count(new, (ast.ExceptHandler,)) > _count(old, (ast.ExceptHandler,)):
        return (
            f"the fix wraps code of {name} in try/except, which hides the failure instead of "
            "fixing it"
        )
    if is_test and _count(new, (ast.Return,)) > _count(old, (ast.Return,)):
        return f"the fix makes {name} return early, so the checks after it never run"
    reason = _tolerances(name, old, new)
    if reason is None:
        reason = _parametrize(name, old, new, notices)
    if reason is None:
        reason = _checks(name, old, new, notices)
    return reason


# -- parsing helpers -------------------------------------------------------------------------


def _function(source: str | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    if source is None:
        return None
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return None
    if len(body) == 1 and isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return body[0]
    return None


def _imported_names(source: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]


def _empty(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Only pass, ..., a docstring or a bare return."""
    for statement in function.body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        if isinstance(statement, ast.Return) and statement.value is None:
            continue
        return False
    return True


def _called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _names(function: ast.AST | None) -> dict[str, int]:
    """How often each name or attribute occurs (decorators included)."""
    counts: dict[str, int] = {}
    if function is None:
        return counts
    for node in ast.walk(function):
        name = _called_name(node)
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return counts


def _added(old: ast.AST | None, new: ast.AST) -> dict[str, int]:
    before, after = _names(old), _names(new)
    return {name: count - before.get(name, 0) for name, count in after.items()}


def _count(function: ast.AST | None, kinds: tuple[type[ast.AST], ...]) -> int:
    if function is None:
        return 0
    return sum(1 for node in ast.walk(function) if isinstance(node, kinds))


def _text(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 80 else text[:77] + "..."


# -- tolerances and parametrization ----------------------------------------------------------


def _calls(function: ast.AST | None, names: frozenset[str]) -> list[ast.Call]:
    if function is None:
        return []
    return [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and _called_name(node.func) in names
    ]


def _number(node: ast.AST) -> float | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return float(value) if isinstance(value, (int, float)) else None


def _tolerances(name: str, old: ast.AST | None, new: ast.AST) -> str | None:
    old_calls, new_calls = _calls(old, APPROX), _calls(new, APPROX)
    if len(new_calls) > len(old_calls):
        return (
            f"the fix adds {_called_name(new_calls[-1].func)} to {name}, which compares "
            "approximately where the test compared exactly"
        )
    for before, after in zip(old_calls, new_calls, strict=False):
        was = {k.arg: k.value for k in before.keywords if k.arg in TOLERANCES}
        for keyword in after.keywords:
            if keyword.arg not in TOLERANCES:
                continue
            looser_when_larger = TOLERANCES[keyword.arg]
            if keyword.arg not in was:
                return (
                    f"the fix adds {keyword.arg}= to {_text(after)} in {name}, which widens "
                    "the tolerance of the comparison"
                )
            old_value, new_value = _number(was[keyword.arg]), _number(keyword.value)
            if old_value is None or new_value is None:
                if ast.dump(was[keyword.arg]) != ast.dump(keyword.value):
                    return f"the fix changes the tolerance {keyword.arg}= in {name}"
                continue
            if (new_value > old_value) if looser_when_larger else (new_value < old_value):
                return (
                    f"the fix widens {keyword.arg}= from {_text(was[keyword.arg])} to "
                    f"{_text(keyword.value)} in {name}, which loosens the comparison"
                )
    return None


def _cases(decorator: ast.Call) -> ast.AST | None:
    if len(decorator.args) >= 2:
        return decorator.args[1]
    return next((k.value for k in decorator.keywords if k.arg == "argvalues"), None)


def _parametrize(
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
                notices.append(f"changes a case of {name}: {_text(a)} → {_text(b)}")
    return None


def _is_parametrize(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _called_name(node.func) == "parametrize"


# -- checks: asserts and assert* calls -------------------------------------------------------


@dataclass(frozen=True)
class _Check:
    node: ast.AST  # the assert's test, or the assert* call
    key: str  # exact structure
    shape: str  # structure with constants masked
    conditional: bool  # under an if, loop, try, match, or a nested function

    @property
    def text(self) -> str:
        return _text(self.node)


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
                callee = _called_name(child.value.func) or ""
                if callee.startswith("assert"):
                    found.append(_check(child.value, conditional))
            visit(child, conditional or isinstance(child, _CONDITIONAL + _NESTED))

    if function is not None:
        visit(function, False)
    return found


def _check(node: ast.AST, conditional: bool) -> _Check:
    import copy

    masked = _Mask().visit(copy.deepcopy(node))
    return _Check(node, ast.dump(node), ast.dump(masked), conditional)


def _checks(
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
    if isinstance(node, ast.Call) and _called_name(node.func) in ("assertTrue", "assert_"):
        return bool(node.args) and _no_op(node.args[0])
    return False


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
        if _called_name(o.func) != _called_name(n.func):
            return f"replaces `{old.text}` with the weaker `{new.text}`"
        if len(n.args) < len(o.args):
            return f"drops an argument: `{old.text}` becomes `{new.text}`"
    if isinstance(o, ast.Call) != isinstance(n, ast.Call):
        return f"replaces `{old.text}` with `{new.text}`"
    return None
