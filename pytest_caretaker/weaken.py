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
RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})
MOCKS = frozenset({"Mock", "MagicMock", "AsyncMock", "NonCallableMock", "create_autospec"})
#: The objects whose attribute of a family's name is that family (pytest.skip, not it.skip).
_BASES = {
    "skip": frozenset({"pytest", "mark", "unittest", "self", "case"}),
    "raises": frozenset({"pytest", "self"}),
    "suppress": frozenset({"contextlib"}),
    "stand-in": frozenset({"mock", "mocker", "unittest", "patch", "monkeypatch", "mp", "m"}),
}
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
        if any(n == "*" or n.startswith("pytest_") for n in names):
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
    before, after = _families(old), _families(new)
    for family, why in (
        ("skip", "skips or xfails it, and a skipped test proves nothing"),
        ("suppress", "suppresses the exception, which hides the failure instead of fixing it"),
        ("raises", "expects an exception that was not expected before"),
    ):
        if family == "skip":  # a changed condition skips differently: compare the calls
            was = [text for _, text in before[family]]
            added = [bare for bare, text in after[family] if text not in was]
        else:  # a new match= narrows pytest.raises: only more uses count
            added = [bare for bare, _ in after[family][len(before[family]) :]]
        if added:
            return f"the fix adds {added[0]} to {name}, which {why}"
    if len(after["stand-in"]) > len(before["stand-in"]):
        return (
            f"the fix adds {after['stand-in'][-1][0]} to {name}, which replaces code with a "
            "stand-in, so the test no longer tests it"
        )
    assigned = _assigned_attributes(new) - _assigned_attributes(old)
    if assigned:
        return (
            f"the fix assigns to {sorted(assigned)[0]} in {name}, which replaces code with a "
            "stand-in, so the test no longer tests it"
        )
    if _count(new, (ast.ExceptHandler,)) > _count(old, (ast.ExceptHandler,)):
        return (
            f"the fix wraps code of {name} in try/except, which hides the failure instead of "
            "fixing it"
        )
    if is_test and _own_returns(new) > _own_returns(old):
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


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return "?"


def _family(node: ast.AST) -> str | None:
    """Which weakening family a name or attribute belongs to: skip, raises, suppress, stand-in."""
    if isinstance(node, ast.Name):
        name, base = node.id, None
    elif isinstance(node, ast.Attribute):
        name, base = node.attr, _dotted(node.value).rsplit(".", 1)[-1]
    else:
        return None
    if name in SKIPS and (base is None or base in _BASES["skip"]):
        return "skip"
    if name in RAISES and (base is None or base in _BASES["raises"]):
        return "raises"
    if name == "suppress" and (base is None or base in _BASES["suppress"]):
        return "suppress"
    if name == "setattr" or (name in MOCKS and (base is None or base in _BASES["stand-in"])):
        return "stand-in"
    if name in ("patch", "object", "dict", "multiple") and (
        (base is None and name == "patch") or base in ("mock", "mocker", "unittest", "patch")
    ):
        return "stand-in"
    return None


def _families(function: ast.AST | None) -> dict[str, list[tuple[str, str]]]:
    """For each family, each use: its name, and its source (the whole call when called)."""
    found: dict[str, list[tuple[str, str]]] = {
        "skip": [],
        "raises": [],
        "suppress": [],
        "stand-in": [],
    }
    if function is None:
        return found
    called = {id(node.func): node for node in ast.walk(function) if isinstance(node, ast.Call)}
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and _family(node.value) is not None:
            continue  # patch.object: counted once, as the outer use
        family = _family(node)
        if family is not None:
            bare = _called_name(node) or "?"
            found[family].append((bare, ast.unparse(called.get(id(node), node))))
    return found


def _assigned_attributes(function: ast.AST | None) -> set[str]:
    """obj.attr targets of assignments where obj is not a local of the function (a module, a
    class): assigning a stand-in to the code under test."""
    if function is None:
        return set()
    local = {
        node.id
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = function.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        local |= {a.arg for a in every} - {"monkeypatch"}
    assigned: set[str] = set()
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute):
                root = target.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id not in local and root.id != "self":
                    assigned.add(_dotted(target))
    return assigned


def _own_returns(function: ast.AST | None) -> int:
    """return statements of the function itself, not of functions nested in it."""
    if function is None:
        return 0
    count = 0
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        count += isinstance(node, ast.Return)
        stack.extend(ast.iter_child_nodes(node))
    return count


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


def _tolerance_args(call: ast.Call) -> dict[str, ast.expr]:
    name = _called_name(call.func) or ""
    given = {k.arg: k.value for k in call.keywords if k.arg in TOLERANCES}
    for index, keyword in _POSITIONS.get(name, {}).items():
        if index < len(call.args):
            given.setdefault(keyword, call.args[index])
    return given


def _tolerances(name: str, old: ast.AST | None, new: ast.AST) -> str | None:
    old_calls, new_calls = _calls(old, APPROX), _calls(new, APPROX)
    if len(new_calls) > len(old_calls):
        return (
            f"the fix adds {_called_name(new_calls[-1].func)} to {name}, which compares "
            "approximately where the test compared exactly"
        )
    for before, after in zip(old_calls, new_calls, strict=False):
        call = _called_name(after.func) or ""
        was, now = _tolerance_args(before), _tolerance_args(after)
        for keyword in dict.fromkeys([*was, *now]):
            default = _DEFAULTS.get((call, keyword))
            old_value = _number(was[keyword]) if keyword in was else default
            new_value = _number(now[keyword]) if keyword in now else default
            if old_value is None or new_value is None:
                same = keyword in was and keyword in now
                if not (same and ast.dump(was[keyword]) == ast.dump(now[keyword])):
                    return (
                        f"the fix changes the tolerance {keyword}= of {_text(after)} in {name} "
                        "to a value caretaker cannot compare; keep it as it was"
                    )
                continue
            looser = new_value > old_value if TOLERANCES[keyword] else new_value < old_value
            if not looser:
                continue
            if keyword not in was:
                return (
                    f"the fix adds {keyword}= to {_text(after)} in {name}, which widens the "
                    "tolerance of the comparison"
                )
            if keyword not in now:
                return (
                    f"the fix removes {keyword}= from {_text(before)} in {name}, which falls "
                    "back to a looser default"
                )
            return (
                f"the fix widens {keyword}= from {_text(was[keyword])} to "
                f"{_text(now[keyword])} in {name}, which loosens the comparison"
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
    if isinstance(node, ast.Call) and len(node.args) >= 2:
        called = _called_name(node.func) or ""
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
        if _called_name(o.func) != _called_name(n.func):
            return f"replaces `{old.text}` with the weaker `{new.text}`"
        if len(n.args) < len(o.args):
            return f"drops an argument: `{old.text}` becomes `{new.text}`"
    if isinstance(o, ast.Call) != isinstance(n, ast.Call):
        return f"replaces `{old.text}` with `{new.text}`"
    return None
