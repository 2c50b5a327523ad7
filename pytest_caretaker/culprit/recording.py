"""What the pytest session does with the history: note the commit it ran at (before a fix is
committed), record what each test did there once the session ends, and say in the header
(``-v``) whether the search for culprits is on, and if not, why.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest_caretaker.culprit.states as states
from pytest_caretaker.culprit.git import Git
from pytest_caretaker.settings import Settings
from pytest_caretaker.text import plural


def head_of(root: Path) -> tuple[str, bool] | None:
    """(HEAD, dirty) of root's repository; None outside one (no process is started then)."""
    if not any((folder / ".git").exists() for folder in (root, *root.parents)):
        return None
    return Git(root).state()


def remember(
    root: Path, head: tuple[str, bool] | None, passed: Iterable[str], failed: Iterable[str]
) -> list[str]:
    """Record the session's state; a note when it could not be."""
    if head is None:
        return []
    try:
        states.record(root, head[0], head[1], passed, failed)
    except OSError as error:
        return [f"caretaker: could not record the session in {states.FILE} ({error})"]
    return []


def header(root: Path, settings: Settings) -> str:
    """One line for the header under -v: the culprit search, on or off and why."""
    head = head_of(root)
    if head is None:
        return "caretaker: culprit search off: not a git repository"
    if Git(root).shallow():
        return "caretaker: culprit search off: a shallow clone"
    clean = sum(1 for state in states.read(root) if not state.dirty)
    bisect = f"; --heal-bisect up to {settings.bisect_depth} commits" if settings.bisect else ""
    if not clean and not settings.bisect:
        from pytest_caretaker.culprit.find import NO_GREEN

        return f"caretaker: culprit search off: {NO_GREEN}"
    return f"caretaker: culprit search on: {plural(clean, 'clean session')} recorded{bisect}"
