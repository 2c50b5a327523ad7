"""What the history keeps of one heal session: one record per failing case, built from the
session's outcome, every text in it redacted the way transcripts are.

The records are plain JSON objects (store.py appends them); their keys are the columns of
``caretaker report``. A key added later must be read with a default: old lines stay in the file.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pytest_caretaker.history.reasons import category
from pytest_caretaker.history.store import append
from pytest_caretaker.record.redact import Redact
from pytest_caretaker.report.files import FOLDER, OUTPUT_DIR, file_name
from pytest_caretaker.results import Failure, HealResult, Written
from pytest_caretaker.settings import Settings
from pytest_caretaker.text import short

#: The front ends that heal: pytest --heal today; caretaker run and runtime healing later.
Source = Literal["pytest", "run", "runtime"]
#: The outcomes a record names; all but "not healed" count as healed.
HEALED, NOT_HEALED, FROM_CACHE, SHARED = "healed", "not healed", "from cache", "shared"
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
) -> Path | None:
    """Append one record per result of the session to root's history; the history's path, or
    None when it could not be written (the caller says so in one line; healing stands)."""
    session = Session(root, settings, redactor, failures or {}, source)
    try:
        return append(root, session.records(outcome))
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
        self.id = self.id or uuid.uuid4().hex[:12]
        self.time = self.time or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

    def text(self, value: str, limit: int = MAX_TEXT) -> str:
        return short(self.redact(printable(value)), limit)

    def records(self, outcome: Outcome) -> list[dict[str, Any]]:
        fate = {nodeid: w for w in outcome.written for nodeid in w.fix.nodeids}
        return [
            self.record(result, fate.get(result.nodeid), result.nodeid in outcome.transcripts)
            for result in outcome.results
        ]

    def record(
        self, result: HealResult, written: Written | None, transcribed: bool
    ) -> dict[str, Any]:
        spend = result.spend
        failure = self.failures.get(result.nodeid)
        return {
            "v": VERSION,
            "time": self.time,
            "session": self.id,
            "source": self.source,
            "tests": [self.text(result.nodeid)],
            "exception": self.text(failure.exc_type) if failure is not None else "",
            "repairer": self.text(result.repairer),
            "models": [self.text(model) for model in self.settings.models],
            "outcome": outcome_of(result),
            "reason": self.text(result.reason),
            "category": "" if result.healed else category(result.reason),
            "attempts": spend.rounds,
            "candidates": spend.candidates,
            "prompt_tokens": spend.prompt_tokens,
            "completion_tokens": spend.completion_tokens,
            "tokens": spend.tokens,
            "cost": round(spend.cost, 6),
            "seconds": round(spend.seconds, 3),
            "patched": [self.text(e.ref) for e in result.edits if e.kind != "import"],
            "shared_with": self.text(result.shared_with),
            "fallbacks": [self.text(line) for line in result.fallbacks],
            "written": written.state if written is not None else "",
            "commit": written.commit if written is not None else "",
            "transcript": self.transcript(result.nodeid) if transcribed else "",
            "diff": self.diff(result),
        }

    def transcript(self, nodeid: str) -> str:
        """The transcript's path relative to the root, if the session wrote it."""
        relative = f"{OUTPUT_DIR}/{FOLDER}/{file_name(printable(nodeid), self.redact)}"
        return relative if (self.root / relative).is_file() else ""

    def diff(self, result: HealResult) -> str:
        """The fix as a diff; a shared result's fix is in the record of the case that found it."""
        if not result.healed or result.shared_with:
            return ""
        from pytest_caretaker.apply.rewrite import unified_diff  # libcst: only for a fix

        diff = b"".join(unified_diff(change) for change in result.changes)
        return self.text(diff.decode("utf-8", "replace"), MAX_DIFF)


def outcome_of(result: HealResult) -> str:
    if not result.healed:
        return NOT_HEALED
    if result.via == "cache":
        return FROM_CACHE
    if result.via == "shared" or result.shared_with:
        return SHARED
    return HEALED


def printable(text: str) -> str:
    """text with lone surrogates (from a non-UTF-8 file name) as U+FFFD: JSON in UTF-8 can
    hold it, and it names the transcript as the engine does."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
