"""Commits as caretaker speaks of them: one of the history (its id, subject, author, date), and
where a failing case broke (culprit/ finds it; every report names it). Values only, below
everything: results.py's HealResult carries a Culprit.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Commit:
    sha: str  # the full id
    subject: str = ""
    author: str = ""
    date: str = ""  # the author date, ISO 8601

    @property
    def short(self) -> str:
        return self.sha[:10]


@dataclass(frozen=True)
class Culprit:
    """Where a failing case broke: the last commit at which it passed and the first at which it
    failed (how that was found: "bisection", "history", "revert", "change"), or, never green in
    the history searched, what that history was (``red``)."""

    green: Commit | None = None
    first_failing: Commit | None = None
    how: str = ""
    red: str = ""
