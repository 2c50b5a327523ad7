"""``.caretaker/last-run.json``: what one session healed, for CI to read.

Every session of every front end (``pytest --heal``, ``caretaker run``, ``caretaker crashes
heal``) replaces it through ``write_last_run``, so a CI step never reads an earlier session's
results: a session with nothing to heal writes one with no problems. The format is versioned
(``"schema": 1``) and described by ``last-run.schema.json`` beside this module; a field added
later keeps the version, a field changed or removed raises it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_caretaker import __version__
from pytest_caretaker.ci.texts import Texts
from pytest_caretaker.report.files import OUTPUT_DIR, output_dir

if TYPE_CHECKING:  # a passing `caretaker run` writes last-run.json: the rest loads with problems
    from pytest_caretaker.ci.junit import JunitNodes
    from pytest_caretaker.history.record import Source
    from pytest_caretaker.record.redact import Redact
    from pytest_caretaker.results import HealResult, Written
    from pytest_caretaker.settings import Settings

SCHEMA = 1
FILE = "last-run.json"
#: The outcomes that count as healed: an UNSURE fix is in the patch, but no heal.
HEALED = ("healed", "from cache", "shared")
SCHEMA_FILE = Path(__file__).with_name("last-run.schema.json")


class Outcome(Protocol):
    """What last-run.json reads of a session's outcome (engine.HealOutcome is one)."""

    @property
    def results(self) -> Sequence[HealResult]: ...
    @property
    def written(self) -> Sequence[Written]: ...
    @property
    def patch(self) -> Path | None: ...


@dataclass(frozen=True)
class Ended:
    """A session at its end: who healed, how, and what came of it."""

    source: Source
    settings: Settings
    redact: Redact
    outcome: Outcome | None = None  # None: nothing was healed (no failure, or interrupted)
    notes: Sequence[str] = ()
    seconds: float = 0.0  # the healing's wall-clock time
    interrupted: bool = False
    #: The tests that passed in the session: what ``caretaker merge --verify`` holds a shard's
    #: fixes to (a test another shard passed must pass with them).
    passed: Sequence[str] = ()


def last_run_path(root: Path) -> Path:
    return root / OUTPUT_DIR / FILE


def write_last_run(root: Path, ended: Ended, junit: JunitNodes | None = None) -> str | None:
    """Replace root's last-run.json, and with junit (pytest --junitxml) give each healed or
    not-healed test its caretaker_* properties; None, or a note saying what failed."""
    try:
        records: list[dict[str, Any]] = []
        if ended.outcome is not None:
            from pytest_caretaker.ci.problems import problems, record

            found = problems(ended.outcome.results)
            text, written = Texts(ended.redact), ended.outcome.written
            records = [record(problem, written, text) for problem in found]
            if junit is not None:
                from pytest_caretaker.ci.junit import properties

                junit.add(properties(found, records))
        data = document(root, ended, records)
        folder = output_dir(root)
        draft = folder / f".{FILE}.{os.getpid()}.partial"
        draft.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        draft.replace(folder / FILE)
    except Exception as error:  # a report: the heals stand without it
        return f"caretaker: could not write {OUTPUT_DIR}/{FILE} ({error!r})"
    return None


def document(root: Path, ended: Ended, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The session as last-run.json holds it, with its problems' records."""
    text = Texts(ended.redact)
    settings = ended.settings
    patch = ended.outcome.patch if ended.outcome is not None else None
    return {
        "schema": SCHEMA,
        "tool": {"name": "pytest-caretaker", "version": __version__},
        "source": ended.source,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "mode": settings.mode,
        "write": settings.write,
        "models": [text(model) for model in settings.models],
        "interrupted": ended.interrupted,
        "patch": patch.relative_to(root).as_posix() if patch is not None else None,
        "totals": totals(records, ended.seconds),
        "problems": list(records),
        "notes": [text(note) for note in ended.notes],
        "passed": sorted(text(test, None) for test in ended.passed),
    }


def totals(records: Sequence[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """last-run.json's ``totals`` of its problems' records."""
    tests = [test for problem in records for test in problem["tests"]]
    return {
        "problems": len(records),
        "problems_healed": sum(1 for p in records if p["outcome"] in HEALED),
        "problems_unsure": sum(1 for p in records if p["outcome"] == "unsure"),
        "tests": len(tests),
        "tests_healed": sum(1 for t in tests if t["outcome"] in HEALED),
        "tests_unsure": sum(1 for t in tests if t["outcome"] == "unsure"),
        "tokens": sum(p["tokens"] for p in records),
        "cost": round(sum(p["cost"] for p in records), 6),
        "seconds": round(seconds, 3),
    }


def read_last_run(root: Path, path: Path | None = None) -> dict[str, Any]:
    """The last-run.json of root (or at path). Raises ValueError, with a sentence, when there
    is none, it is no JSON, or its schema is not one this version reads."""
    target = path or last_run_path(root)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(
            f"{target} does not exist; pytest --heal, caretaker run and caretaker crashes heal "
            "write it"
        ) from None
    except (OSError, ValueError) as error:
        raise ValueError(f"{target} cannot be read: {error}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise ValueError(
            f"{target} has schema {found!r}; this caretaker ({__version__}) reads schema {SCHEMA}"
        )
    return data
