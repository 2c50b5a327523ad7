"""Evasions: whether an edit lets a test avoid its failure instead of testing the code.

The part of the weakening guard (weakening.py) that reads what a test does around its checks:
a new skip or xfail, contextlib.suppress, pytest.raises or assertRaises, a new mock, patch or
assignment that replaces the code under test with a stand-in, a new try/except, and a return
before the checks. Only what the edit adds counts: a test that already skipped or mocked may
keep doing so.
"""

from __future__ import annotations

import ast

from pytest_caretaker.guard.nodes import Function, called_name, own_nodes

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


def evasions(name: str, old: Function | None, new: Function) -> str | None:
    """Why new avoids the failure old would meet (a refusal sentence), or None."""
    before, after = _families(old), _families(new)
    return (
        _escapes(name, before, after)
        or _stands_in(name, old, new, before, after)
        or _cuts_short(name, old, new)
    )


#: For each family (skip, raises, suppress, stand-in), each use: its name and its source.
_Uses = dict[str, list[tuple[str, str]]]


def _escapes(name: str, before: _Uses, after: _Uses) -> str | None:
    """The test escapes its failure: a new skip or xfail, suppress, or pytest.raises."""
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
    return None


def _stands_in(
    name: str, old: ast.AST | None, new: ast.AST, before: _Uses, after: _Uses
) -> str | None:
    """The code under test is replaced: a new mock or patch, or an assignment to its attribute."""
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
    return None


def _cuts_short(
    name: str,
    old: Function | None,
    new: Function,
) -> str | None:
    """The failure is caught by a new except, or a test returns before its checks."""
    if _count(new, (ast.ExceptHandler,)) > _count(old, (ast.ExceptHandler,)):
        return (
            f"the fix wraps code of {name} in try/except, which hides the failure instead of "
            "fixing it"
        )
    is_test = new.name.startswith("test") or (old is not None and old.name.startswith("test"))
    if is_test and _own_returns(new) > _own_returns(old):
        return f"the fix makes {name} return early, so the checks after it never run"
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


def _families(function: ast.AST | None) -> _Uses:
    """For each family, each use: its name, and its source (the whole call when called)."""
    found: _Uses = {
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
    return sum(isinstance(node, ast.Return) for node in own_nodes(function))


def _count(function: ast.AST | None, kinds: tuple[type[ast.AST], ...]) -> int:
    if function is None:
        return 0
    return sum(1 for node in ast.walk(function) if isinstance(node, kinds))
