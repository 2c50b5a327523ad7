"""A test's culprit as last-run.json holds it (last-run.schema.json's ``culprit``)."""

from __future__ import annotations

from typing import Any

from pytest_caretaker.changes.lineage import culprit_line
from pytest_caretaker.ci.texts import Texts
from pytest_caretaker.commits import Commit, Culprit


def culprit(found: Culprit | None, text: Texts) -> dict[str, Any]:
    """``{"culprit": ...}``, to add to a test's object: the first failing commit and the last
    green one, how the first was found, and the line the summary shows; empty when the history
    tells nothing of the test (the key is absent, as in files from before it was added)."""
    if found is None:
        return {}
    return {"culprit": _culprit(found, text)}


def _culprit(found: Culprit, text: Texts) -> dict[str, Any]:
    return {
        "first_failing": _commit(found.first_failing, text),
        "last_green": _commit(found.green, text),
        "found_by": found.how,
        "red": text(found.red),
        "text": text(culprit_line(found)),
    }


def _commit(commit: Commit | None, text: Texts) -> dict[str, str] | None:
    if commit is None:
        return None
    return {
        "sha": commit.sha,
        "subject": text(commit.subject),
        "author": text(commit.author),
        "date": commit.date,
    }
