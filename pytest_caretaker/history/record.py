"""What the history keeps of one heal session: one record per failing case, with the lead of its
problem (the case whose repair speaks for its root cause), the commit of its fix and the
transcript of its session, built from the session's outcome, every text in it redacted the way
transcripts are.

The records are plain JSON objects (store.py appends them); their keys are the columns of
``caretaker report``. A key added later must be read with a default: old lines stay in the file.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pytest_caretaker.changes.lineage import culprit_line
from pytest_caretaker.history.problems import Problem, diff, outcome_of, problems, spent
from pytest_caretaker.history.reasons import category
from pytest_caretaker.history.store import append
from pytest_caretaker.record.redact import Redact
from pytest_caretaker.report.files import new_session, transcript_path
from pytest_caretaker.results import Doubt, Failure, HealResult, Written
from pytest_caretaker.settings import Settings
from pytest_caretaker.text import short
from pytest_caretaker.write.message import subject

#: The front ends that heal: pytest --heal, caretaker run, runtime healing (caretaker crashes).
Source = Literal["pytest", "run", "runtime"]
VERSION = 1
MAX_DIFF = 20_000  # characters of a fix's diff kept in its record
MAX_TEXT = 1_000  # characters of a reason or another line of text


class Outcome(Protocol):
    """What the history reads of a session's outcome (engine.HealOutcome is one)."""

    @property
    def results(self) -> Sequence[HealResult]: ...
    @property
    def written(self) -> Sequence[Written]: ...
    @property
    def transcripts(self) -> Mapping[str, object]: ...


def record_session(
    root: Path,
    outcome: Outcome,
    settings: Settings,
    redactor: Redact,
    failures: Mapping[str, Failure] | None = None,
    source: Source = "pytest",
    session: str = "",
) -> Path | None:
    """Append one record per result of the session to root's history; the history's path, or
    None when it could not be written (the caller says so in one line; healing stands).
    session: the id its transcripts were written under (report.files.write_all)."""
    made = Session(root, settings, redactor, failures or {}, source, session)
    try:
        return append(root, made.records(outcome))
    except OSError:
        return None


@dataclass
class Session:
    """One session's context: what every record of it shares."""

    root: Path
    settings: Settings
    redact: Redact
    failures: Mapping[str, Failure]
    source: Source
    id: str = ""
    time: str = ""

    def __post_init__(self) -> None:
        self.id = self.id or new_session()
        self.time = self.time or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

    def text(self, value: str, limit: int = MAX_TEXT) -> str:
        return short(self.redact(printable(value)), limit)

    def records(self, outcome: Outcome) -> list[dict[str, Any]]:
        return [
            self.record(problem, result, problem.written(outcome.written), outcome.transcripts)
            for problem in problems(outcome.results)
            for result in problem.results
        ]

    def record(
        self,
        problem: Problem,
        result: HealResult,
        written: Written | None,
        transcripts: Mapping[str, object],
    ) -> dict[str, Any]:
        failure = self.failures.get(result.nodeid)
        title = subject(written.fix, self.redact) if written is not None and written.commit else ""
        return {
            "v": VERSION,
            "time": self.time,
            "session": self.id,
            "source": self.source,
            "tests": [self.text(result.nodeid)],
            "problem": self.text(problem.lead.nodeid),
            "exception": self.text(failure.exc_type) if failure is not None else "",
            "repairer": self.text(result.repairer),
            "models": [self.text(model) for model in self.settings.models],
            "outcome": outcome_of(result),
            "reason": self.text(result.reason),
            "category": "" if result.healed else category(result.reason),
            **spent(result.spend),
            "patched": [self.text(e.ref) for e in result.edits if e.kind != "import"],
            "shared_with": self.text(result.shared_with),
            "fallbacks": [self.text(line) for line in result.fallbacks],
            "written": written.state if written is not None else "",
            "commit": written.commit if written is not None else "",
            "uncommitted": self.text(written.uncommitted) if written is not None else "",
            "subject": self.text(title),
            "transcript": self.transcript(result.nodeid) if result.nodeid in transcripts else "",
            "diff": "" if result.shared_with else self.text(diff(result), MAX_DIFF),
            "culprit": self.text(culprit_line(result.culprit)) if result.culprit else "",
            "doubt": self.text(doubt.reason) if (doubt := _doubt(result)) is not None else "",
        }

    def transcript(self, nodeid: str) -> str:
        """The transcript's path relative to the root, if the session wrote it: in its own
        folder, or (a front end that names no session) the latest one's."""
        for session in (self.id, ""):
            relative = transcript_path(printable(nodeid), session, self.redact)
            if (self.root / relative).is_file():
                return relative
        return ""


def _doubt(result: HealResult) -> Doubt | None:
    """Why the result's fix is UNSURE; None for any other."""
    return result.candidate.doubt if result.candidate is not None else None


def printable(text: str) -> str:
    """text with lone surrogates (from a non-UTF-8 file name) as U+FFFD: JSON in UTF-8 can
    hold it, and it names the transcript as the engine does."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
