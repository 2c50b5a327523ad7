"""What follows a failing run: its findings repaired one after another (loop.py, repair.py),
reported as ``pytest --heal`` reports (summary, .caretaker/heal.patch, transcripts, the
history, last-run.json), and with --write, once every fix is written and committed, the command
run once more on the written tree.

The engine (engine.py) is built around a pytest Runner and its Check, so this drives the parts
it is made of directly: the chain (repair/chain.py), report/ and write/.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pytest_caretaker.ci.last_run import Ended, write_last_run
from pytest_caretaker.history import record_session
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.report import files as report_files
from pytest_caretaker.report.summary import Plain, summary
from pytest_caretaker.results import Failure, HealResult, Written
from pytest_caretaker.run import crash
from pytest_caretaker.run.command import (
    INTERRUPTED,
    Command,
    Ran,
    Run,
    python_target,
    shown,
    start,
)
from pytest_caretaker.run.copies import TooLarge
from pytest_caretaker.run.findings import reported_in
from pytest_caretaker.run.loop import Healing, heal_findings
from pytest_caretaker.run.repair import Repairing, Repairs, Unrepairable
from pytest_caretaker.text import plural


@dataclass(frozen=True)
class RunOutcome:
    """What the heal history reads of one run's heal (history.Outcome)."""

    results: Sequence[HealResult]
    written: Sequence[Written]
    patch: Path | None
    transcripts: Mapping[str, str]


def heal_failure(command: Command, first: Ran, folder: Path, env: dict[str, str], run: Run) -> int:
    """Heal what the failing first run reports; the exit status, as heal.py promises."""
    from pytest_caretaker.llm.extra import INSTALL
    from pytest_caretaker.llm.models import choose

    # The model chain as pytest --heal decides it (a key in the environment, a local Ollama…).
    settings = choose(command.settings, command.env)
    if INSTALL in settings.reason:  # a model left out: no litellm anywhere, and what to run
        print(f"caretaker: {settings.reason.replace('--heal-', '--')}", file=command.out)
    command, run = replace(command, settings=settings), replace(run, settings=settings)
    name, root = shown(command.argv), command.root
    target = python_target(command.argv)
    record = crash.recorded(folder / "record.json", name, first.output, run.redactor)
    work = Repairing(
        command.settings,
        root,
        command.argv,
        target,
        env,
        folder,
        run.redactor,
        command.env,
        command.tests,
    )
    if record is not None and not record.frames:
        record = None
    if record is None and not reported_in(
        first.output, root, name, ProjectFiles(root), run.redactor
    ):
        return _gave_up(command, first, _nothing(first, target is not None), run.redactor)
    done = Healing()
    try:
        with Repairs(work) as repairs:
            done.notes += repairs.notes
            heal_findings(run, repairs, first, record, done)
    except (Unrepairable, TooLarge) as error:
        return _gave_up(command, first, str(error), run.redactor)
    except KeyboardInterrupt:
        if done.results:
            _report(command, done, run.redactor, interrupted=True)
        count = _written(done)
        kept = (
            f"{plural(count, 'fix', 'fixes')} written before it" if count else "nothing was written"
        )
        print(f"caretaker: interrupted (Ctrl-C); {kept}", file=sys.stderr)
        return INTERRUPTED
    _report(command, done, run.redactor)
    if not _written(done):
        return first.status
    again = start(command, env)
    if isinstance(again, int):
        return again
    command.out.write(again.output)
    count = _written(done)
    fixes = "the fix" if count == 1 else f"the {count} fixes"
    print(f"caretaker: {name} exits with status {again.status} after {fixes}", file=command.out)
    return again.status


def _gave_up(command: Command, first: Ran, why: str, redactor: Redactor) -> int:
    """Say why the failing run is not healed; its exit status. last-run.json says it too."""
    line = f"caretaker: {shown(command.argv)} failed (exit status {first.status}); {why}"
    print(line, file=command.out)
    failed = write_last_run(command.root, Ended("run", command.settings, redactor, notes=[line]))
    if failed is not None:
        print(failed, file=command.out)
    return first.status


def _written(done: Healing) -> int:
    return sum(1 for w in done.written if w.state in ("written", "committed"))


def _nothing(first: Ran, python: bool) -> str:
    """Why a failing run gives nothing to heal."""
    if "Traceback (most recent call last):" in first.output:
        return "its traceback shows no file of the project, so there is nothing to heal"
    if python:
        return "it printed no Python traceback, so there is nothing to heal"
    return (
        "it printed no Python traceback and no path:line of a Python file of the project, "
        "so there is nothing to heal"
    )


def _report(command: Command, done: Healing, redactor: Redactor, interrupted: bool = False) -> None:
    """Patch, transcripts, the history, last-run.json, notes, and the summary."""
    root = command.root
    patch: Path | None = None
    notes = list(done.notes)
    rendered = {nodeid: redactor(text) for nodeid, text in done.logs.items()}
    session = report_files.new_session()  # the transcripts' folder, named in the history
    try:
        from pytest_caretaker.apply.rewrite import unified_diff

        diff = b"".join(unified_diff(change) for change in done.changes)
        patch = report_files.write_patch(root, diff)
        folder, keep = report_files.output_dir(root), command.settings.transcripts
        report_files.write_all(folder, rendered, redactor, session, keep)
    except OSError as error:
        notes.append(f"caretaker: could not write to {report_files.OUTPUT_DIR}/ ({error})")
    outcome = RunOutcome(done.results, done.written, patch, rendered)
    # Before the summary, which tells when `caretaker report` is older than the history.
    notes += _remember(command, done.failures, outcome, redactor, session)
    seconds = time.monotonic() - done.begun
    ended = Ended("run", command.settings, redactor, outcome, notes, seconds, interrupted)
    notes += [failed] if (failed := write_last_run(root, ended)) is not None else []
    for note in notes:
        print(note, file=command.out)
    from pytest_caretaker.llm.models import local_models

    local = local_models(command.settings, command.env)
    summary(Plain(command.out), done.results, patch, root, done.written, local)


def _remember(
    command: Command,
    failures: Mapping[str, Failure],
    outcome: RunOutcome,
    redactor: Redactor,
    session: str,
) -> list[str]:
    """Append the heal to the history; a note when it could not be (the heal stands)."""
    settings = command.settings
    try:
        history = record_session(
            command.root, outcome, settings, redactor, failures, "run", session
        )
    except Exception:  # a record that cannot be built must not cost the heal its report
        history = None
    if history is not None:
        return []
    return [
        "caretaker: could not append to .caretaker/history.jsonl; "
        "this heal is missing from caretaker report"
    ]
