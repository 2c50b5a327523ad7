"""A session's problems (one per root cause, grouped by history/problems.py), each as the JSON
object last-run.json holds (last-run.schema.json's ``problem``), every text in it redacted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pytest_caretaker.ci.culprits import culprit
from pytest_caretaker.ci.texts import Texts
from pytest_caretaker.history.problems import (
    Problem,
    diff,
    outcome_of,
    problems,
    spent,
)
from pytest_caretaker.history.reasons import category
from pytest_caretaker.results import Doubt, Written
from pytest_caretaker.write.message import subject

__all__ = ["Problem", "commit", "diff", "doubt", "hunks", "problems", "record"]


def hunks(text: str) -> list[dict[str, object]]:
    """A diff's files, each with its hunks (from ``@@`` to the next one)."""
    files: list[dict[str, object]] = []
    for part in re.split(r"^(?=diff --git )", text, flags=re.M):
        lines = part.splitlines(keepends=True)
        if not lines:
            continue
        path = lines[2][len("+++ b/") :].rstrip("\n") if len(lines) > 2 else ""
        found: list[str] = []
        for line in lines[3:]:
            if line.startswith("@@") or not found:
                found.append("")
            found[-1] += line
        files.append({"path": path, "hunks": found})
    return files


def record(problem: Problem, written: Sequence[Written], text: Texts) -> dict[str, Any]:
    """The problem as last-run.json holds it."""
    lead = problem.lead
    patch = text(diff(lead), None)
    return {
        "outcome": problem.outcome,
        "tests": [
            {
                "id": text(r.nodeid, None),
                "outcome": outcome_of(r),
                **culprit(r.culprit, text),
            }
            for r in problem.results
        ],
        "reason": text(problem.reason),
        "category": "" if lead.healed else category(problem.reason),
        "repairer": text(lead.repairer),
        "fallbacks": [text(line) for line in lead.fallbacks],
        "explanation": text(lead.explanation),
        "notices": [text(notice) for notice in lead.notices],
        "patched": [text(edit.ref) for edit in lead.edits if edit.kind != "import"],
        "diff": patch,
        "files": hunks(patch),
        "commit": commit(problem, written, text),
        "doubt": doubt(lead.candidate.doubt if lead.candidate is not None else None, text),
        **spent(problem.spend),
    }


def doubt(said: Doubt | None, text: Texts) -> dict[str, str] | None:
    """Why an UNSURE fix is one; None for any other."""
    if said is None:
        return None
    return {
        "reason": text(said.reason),
        "call": text(said.call),
        "outcome": text(said.outcome),
        "other": text(said.other),
        "alternative": text(said.alternative, None),  # a diff, whole as the fix's own
        "test": text(said.test),
    }


def commit(problem: Problem, written: Sequence[Written], text: Texts) -> dict[str, str] | None:
    """What --heal-write did with the problem's fix; None when it was not to be written."""
    done = problem.written(written)
    if done is None:
        return None
    title = subject(done.fix, text.redact) if done.commit else ""
    return {
        "state": done.state,
        "sha": done.commit,
        "subject": text(title),
        "detail": text(done.detail),
    }
