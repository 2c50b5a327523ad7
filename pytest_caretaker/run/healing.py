"""What follows a crash: record it as a Failure, repair it (repair.py), report as
``pytest --heal`` does (summary, .caretaker/heal.patch, the transcript), and with --write write
and commit the fix and run the command once more on the written tree.

The engine (engine.py) is built around a pytest Runner and its Check, so this drives the parts
it is made of directly: the chain (repair/chain.py), selection's patch, report/ and write/.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pytest_caretaker import selection
from pytest_caretaker.history import record_session
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.report import files as report_files
from pytest_caretaker.report.summary import summary
from pytest_caretaker.results import Failure, HealResult, Written
from pytest_caretaker.run import crash
from pytest_caretaker.run.command import Command, Ran, python_target, shown, start
from pytest_caretaker.run.repair import Repairing, repair
from pytest_caretaker.write.writer import write_fixes


@dataclass(frozen=True)
class RunOutcome:
    """What the heal history reads of one run's heal (history.Outcome)."""

    results: Sequence[HealResult]
    written: Sequence[Written]
    patch: Path | None
    transcripts: Mapping[str, str]


class Plain:
    """The summary's writer on a plain stream."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write_line(self, line: str, **markup: bool) -> None:
        print(line, file=self.out)

    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None:
        print(f" {title} ".center(79, sep) if title else sep * 79, file=self.out)


def heal_crash(command: Command, first: Ran, folder: Path, env: dict[str, str]) -> int:
    name, root = shown(command.argv), command.root
    redactor = Redactor(command.env)
    target = python_target(command.argv)
    failure = crash.recorded(folder / "record.json", name, first.output, redactor)
    if failure is None and target is not None:
        path = target.name if target.kind == "path" else ""
        failure = crash.parsed(first.output, root, name, path, redactor)
    why = _unhealable(failure, target is not None)
    if why is not None or failure is None or target is None:
        print(f"caretaker: {name} failed (exit status {first.status}); {why}", file=command.out)
        return first.status
    work = Repairing(command.settings, root, target, env, folder, redactor, command.env)
    result, log = repair(work, failure)
    written = _report(command, failure, result, log.render(failure, result), redactor)
    if not command.settings.write or not any(w.state in ("written", "committed") for w in written):
        return first.status
    again = start(command, env)
    if isinstance(again, int):
        return again
    command.out.write(again.output)
    print(f"caretaker: {name} exits with status {again.status} after the fix", file=command.out)
    return again.status


def _unhealable(failure: Failure | None, python: bool) -> str | None:
    if not python:
        return "only a Python script or module (python script.py, python -m pkg) can be healed"
    if failure is None:
        return "it printed no Python traceback, so there is nothing to heal"
    if not failure.frames:
        return "its traceback shows no file of the project, so there is nothing to heal"
    return None


def _report(
    command: Command, failure: Failure, result: HealResult, transcript: str, redactor: Redactor
) -> list[Written]:
    """Patch, transcript, with --write the written fix, and the summary."""
    root, settings = command.root, command.settings
    fixes = selection.group([result])
    patch: Path | None = None
    notes: list[str] = []
    rendered = {failure.nodeid: redactor(transcript)}
    try:
        patch = report_files.write_patch(root, selection.patch(fixes))
        report_files.write_all(report_files.output_dir(root), rendered, redactor)
    except OSError as error:
        notes.append(f"caretaker: could not write to {report_files.OUTPUT_DIR}/ ({error})")
    written: list[Written] = []
    if settings.write:
        written, more = write_fixes(fixes, root, settings, redactor=redactor)
        notes += more
    # Before the summary, which tells when `caretaker report` is older than the history.
    notes += _remember(command, failure, RunOutcome([result], written, patch, rendered), redactor)
    for note in notes:
        print(note, file=command.out)
    summary(Plain(command.out), [result], patch, root, written)
    return written


def _remember(
    command: Command, failure: Failure, outcome: RunOutcome, redactor: Redactor
) -> list[str]:
    """Append the heal to the history; a note when it could not be (the heal stands)."""
    failures = {failure.nodeid: failure}
    try:
        history = record_session(command.root, outcome, command.settings, redactor, failures, "run")
    except Exception:  # a record that cannot be built must not cost the heal its report
        history = None
    if history is not None:
        return []
    return [
        "caretaker: could not append to .caretaker/history.jsonl; "
        "this heal is missing from caretaker report"
    ]
