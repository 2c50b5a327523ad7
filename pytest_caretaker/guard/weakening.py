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

This module decides which edits are reviewed and what is refused outright (conftest hooks, a
renamed or emptied test); each other kind of weakening is read by a module of its own, in the
order the reasons are given: evasions.py, shadows.py, tolerances.py, raises.py, cases.py,
helpers.py, checks.py. Before any of them, every edit, code or test, is read for a forged verdict
(forgery.py); edits to code are read for special cases of the failing test (special.py) when the
caller says what the failing tests are.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from pytest_caretaker import syntax
from pytest_caretaker.guard.cases import parametrize
from pytest_caretaker.guard.checks import checks
from pytest_caretaker.guard.doctests import rewritten
from pytest_caretaker.guard.evasions import evasions
from pytest_caretaker.guard.failing import Failing
from pytest_caretaker.guard.forgery import forgery
from pytest_caretaker.guard.helpers import helpers
from pytest_caretaker.guard.nodes import Function
from pytest_caretaker.guard.raises import raises
from pytest_caretaker.guard.shadows import rebinds_import, shadows
from pytest_caretaker.guard.special import special_cases
from pytest_caretaker.guard.tolerances import tolerances
from pytest_caretaker.project.files import TestFiles
from pytest_caretaker.results import Edit


@dataclass(frozen=True)
class Review:
    refused: str | None = None  # the first reason to refuse the candidate
    notices: tuple[str, ...] = ()  # allowed, but shown prominently: what a test now expects


def review(
    edits: Sequence[Edit],
    tests: TestFiles,
    original: Callable[[Edit], str | None],
    module: Callable[[str], str | None] | None = None,
    failing: Failing | None = None,
) -> Review:
    """Review the edits; original(edit) is the source the edit replaces, if any.

    Every edit is first read for what it reaches of the verifier, pytest or the interpreter
    (forgery.py). Then edits to test code are compared for weakening, and, when failing says
    what the failing tests are, edits to code for special cases of them (special.py).
    module(path), when given, is the text of a file as it is: its imports tell what an import
    edit adds and what a name in a test file stands for."""
    forged = forgery(edits, original, module, tests)
    if forged is not None:
        return Review(forged)
    notices: list[str] = []
    for edit in edits:
        before = original(edit) if edit.kind == "replace" else None
        if edit.path not in tests:  # conftests are test code too, wherever they live
            text = module(edit.path) if module is not None else None
            reason = _special(edit, before, failing or Failing(), notices, text)
        else:
            reason = _review_edit(edit, before, notices, module)
        if reason is not None:
            return Review(reason, tuple(notices))
    return Review(None, tuple(notices))


def _special(
    edit: Edit, before: str | None, failing: Failing, notices: list[str], module: str | None
) -> str | None:
    new = _function(edit.source) if edit.kind != "import" else None
    if new is None:
        return None
    doctest = rewritten(edit.ref, before, edit.source, module)
    if doctest is not None and (not failing.paths or edit.path in failing.paths):
        return doctest  # the failing test may be that doctest: what it expects is the spec
    if doctest is not None:  # documentation of the old behaviour, run by no failing test
        notices.append(f"updates the doctest of {edit.ref}: {doctest.split(';')[0][8:]}")
    return special_cases(edit.ref, _function(before), new, failing, notices)


def _review_edit(
    edit: Edit,
    before: str | None,
    notices: list[str],
    module: Callable[[str], str | None] | None = None,
) -> str | None:
    conftest = PurePosixPath(edit.path).name == "conftest.py"
    rebinds = rebinds_import(edit, module)
    if rebinds is not None:
        return rebinds
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
    old: Function | None,
    new: Function,
    notices: list[str],
) -> str | None:
    """Why new tests less than old (a refusal sentence), or None; judgement calls are noticed."""
    # In this order: the first that applies is the reason the model reads.
    return (
        _removed(name, old, new)
        or evasions(name, old, new)
        or shadows(name, old, new)
        or tolerances(name, old, new)
        or raises(name, old, new, notices)
        or parametrize(name, old, new, notices)
        or helpers(name, old, new, notices)
        or checks(name, old, new, notices)
    )


def _removed(
    name: str,
    old: Function | None,
    new: Function,
) -> str | None:
    """The test is gone: renamed (pytest no longer runs it under its name) or emptied."""
    if old is not None and new.name != old.name:
        return (
            f"the fix renames {old.name} to {new.name} in {name}; a renamed test is a deleted "
            "test, keep its name"
        )
    if old is not None and _empty(new) and not _empty(old):
        return f"the fix deletes the body of {name}; a test that does nothing proves nothing"
    return None


# -- parsing helpers -------------------------------------------------------------------------


def _function(source: str | None) -> Function | None:
    """The one function source defines. A method whose strings hold lines less indented than
    its def keeps its indentation when dedented: it is read inside a block, so that the guards
    compare it with what it was rather than take all of it for new (#34)."""
    if source is None:
        return None
    for text in (source, "if True:\n" + source):
        try:
            body = syntax.parse(text).body
        except (SyntaxError, ValueError):
            continue
        if len(body) == 1 and isinstance(body[0], ast.If) and text is not source:
            body = body[0].body
        if len(body) == 1 and isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return body[0]
        return None
    return None


def _imported_names(source: str) -> list[str]:
    try:
        tree = syntax.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]


def _empty(function: Function) -> bool:
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
