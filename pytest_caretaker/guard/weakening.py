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

from pytest_caretaker.guard.checks import NESTED, called_name, checks, parametrize, tolerances
from pytest_caretaker.results import Edit

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
    reason = tolerances(name, old, new)
    if reason is None:
        reason = parametrize(name, old, new, notices)
    if reason is None:
        reason = checks(name, old, new, notices)
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
            bare = called_name(node) or "?"
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
        if isinstance(node, NESTED):
            continue
        count += isinstance(node, ast.Return)
        stack.extend(ast.iter_child_nodes(node))
    return count


def _count(function: ast.AST | None, kinds: tuple[type[ast.AST], ...]) -> int:
    if function is None:
        return 0
    return sum(1 for node in ast.walk(function) if isinstance(node, kinds))
