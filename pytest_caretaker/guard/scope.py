"""Guard: refuse edits outside the scope or outside the project, before anything is applied.

The scope rule (--heal-scope: code, tests or any) lives here and only here: what a model is
offered, what a reply may name, what a guard lets through and what the built-in repairer mutates
all ask ``editable``. Each reason is a sentence the model can act on in its next attempt.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_caretaker.project.files import TestFiles
from pytest_caretaker.results import Edit
from pytest_caretaker.settings import Scope

SCOPE_HINT = {
    "code": "rerun with --heal-scope=tests to let caretaker edit tests",
    "tests": "rerun with --heal-scope=code to let caretaker edit the code under test",
}


def fence(rel: str, root: Path) -> str | None:
    """Why rel may not be edited at all (outside the project, not Python, a library), or None."""
    if not rel:
        return "the edit names no file"
    candidate = Path(rel)
    if candidate.is_absolute() or ".." in candidate.parts:
        return f"{rel} is outside the project; edit files under {root.name}/ only"
    if candidate.suffix != ".py":
        return f"{rel} is not a Python file; only .py files may be edited"
    if any(part in ("site-packages", "dist-packages") for part in candidate.parts):
        return f"{rel} belongs to an installed library, not to the project"
    resolved = (root / candidate).resolve()
    try:
        resolved.relative_to(root.resolve())
    except ValueError:
        return f"{rel} leads outside the project through a link"
    if not resolved.is_file():
        return f"{rel} does not exist; edit one of the functions you were shown"
    return None


def editable(path: str, scope: Scope, tests: Container[str]) -> bool:
    """Whether the scope lets a fix change the file at path (a test file or code under test)."""
    return scope == "any" or (scope == "tests") == (path in tests)


def check(edits: Sequence[Edit], scope: Scope, root: Path, tests: Container[str]) -> str | None:
    """The first reason to refuse these edits, or None when they may be applied."""
    for edit in edits:
        reason = fence(edit.path, root)
        if reason is not None:
            return reason
        if editable(edit.path, scope, tests):
            continue
        if scope == "code":
            return (
                f"the fix edits test code ({edit.path}), but tests are the specification; "
                f"fix the code under test instead ({SCOPE_HINT['code']})"
            )
        return (
            f"the fix edits {edit.path}, which is not a test file; "
            f"only tests may change ({SCOPE_HINT['tests']})"
        )
    return None


def nothing_editable(scope: Scope, spawned: Sequence[str] = (), traced: bool = True) -> str:
    """Why a failure cannot be repaired when nothing it ran may be edited; spawned: the other
    programs the test started (what they ran, no trace saw); traced: whether the test's rerun
    was traced at all (else what it ran is not known, and no claim about it is made)."""
    if scope == "code" and not traced:
        return (
            "its traceback shows no code under test, and caretaker's rerun of the test traced"
            f" nothing (it did not run there); {SCOPE_HINT['code']} if the test is wrong"
        )
    if scope == "code" and spawned:
        return (
            "no code under test ran in the test's own process, and the test started another"
            f" program (`{spawned[0]}`), whose code caretaker cannot trace; call the code under"
            f" test in the test's process to let caretaker heal it, or if the test is wrong,"
            f" {SCOPE_HINT['code']}"
        )
    if scope == "code":
        return f"the failure is in test code (no code under test ran in it); {SCOPE_HINT['code']}"
    if scope == "tests":
        return f"no test code ran in the failing test; {SCOPE_HINT['tests']}"
    return "no project code ran in the failing test"


def own_fault_reason(what: str) -> str:
    """Why a failure that is the test's own (project/testfault.py: what fails in its line) is
    not repaired while tests may not change."""
    return f"the failure is in test code: {what}; {SCOPE_HINT['code']}"


@dataclass(frozen=True)
class Editable:
    """The scope rule of one session, bound to its project: what may be edited, and why not."""

    scope: Scope
    root: Path
    tests: TestFiles

    def path(self, rel: str) -> bool:
        return editable(rel, self.scope, self.tests)

    def refusal(self, edits: Sequence[Edit]) -> str | None:
        return check(edits, self.scope, self.root, self.tests)

    def nothing_editable(self, spawned: Sequence[str] = (), traced: bool = True) -> str:
        return nothing_editable(self.scope, spawned, traced)
