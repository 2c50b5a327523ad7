"""``caretaker crashes heal``: repair recorded crashes after the fact, each fix proved by
replaying its recorded call (repair.py), and report as ``caretaker run`` does: the summary with
its closing line, .caretaker/heal.patch, a transcript per crash, the history; with --write the
fixes are written and committed (write/writer.py). Crashes marked fixed are left alone, and the
ones fixed now are marked (lifecycle.py)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from pytest_caretaker import selection
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.report import files as report_files
from pytest_caretaker.report.summary import Plain, summary
from pytest_caretaker.results import HealResult, Written
from pytest_caretaker.runtime import lifecycle
from pytest_caretaker.runtime.fixing import Healed
from pytest_caretaker.runtime.records import Crash
from pytest_caretaker.runtime.repair import RETURNS, Repairing, repair
from pytest_caretaker.runtime.settings import settings_for
from pytest_caretaker.settings import SettingError, Settings
from pytest_caretaker.write.writer import write_fixes


def heal_crashes(args: argparse.Namespace, root: Path, crashes: Sequence[Crash]) -> int:
    """0 when every crash chosen is healed or fixed, else 1; 2 for a bad setting. A crash marked
    fixed is not healed again; one whose call returns now is marked fixed; one whose fix is
    written is marked fixed with its commit (lifecycle.py)."""
    env = dict(os.environ)
    cli: dict[str, object] = {
        "models": list(args.model),
        "api_base": args.api_base,
        "attempts": args.attempts,
        "timeout": args.timeout,
        "write": True if args.write else None,
        "commit": False if args.no_commit else None,
        "sandbox": args.sandbox,
    }
    try:
        settings = settings_for(root, env, cli)
    except SettingError as error:
        print(f"caretaker: {error}", file=sys.stderr)
        return 2
    redactor = Redactor.for_project(root, env)
    named = _named(_open(crashes))
    results: list[HealResult] = []
    transcripts: dict[str, str] = {}
    scratch = Path(tempfile.mkdtemp(prefix="caretaker-crashes-"))
    try:
        for index, crash in enumerate(named, 1):
            print(f"caretaker: healing {index}/{len(named)} {crash.id} …", flush=True)
            result, log = repair(Repairing(settings, root, scratch, redactor, env), crash)
            if result.reason == RETURNS:  # nothing to heal: no row that counts as not healed
                _returns(crash)
                continue
            results.append(result)
            transcripts[result.nodeid] = redactor(log.render(crash.failure, result))
    except KeyboardInterrupt:
        print("caretaker: interrupted (Ctrl-C); nothing was written", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if results:
        written = _report(root, settings, redactor, named, results, transcripts)
        lifecycle.mark_written(named, written, redactor)
    return 0 if all(result.healed for result in results) else 1


def _open(crashes: Sequence[Crash]) -> list[Crash]:
    """The crashes not marked fixed; each fixed one is said in a line and left alone."""
    for crash in crashes:
        if lifecycle.fixed(crash) is not None:
            print(
                f"caretaker: {crash.id} is fixed ({lifecycle.said(crash)}); not healed again "
                "(caretaker crashes clear --fixed removes it)"
            )
    return [crash for crash in crashes if lifecycle.fixed(crash) is None]


def _returns(crash: Crash) -> None:
    """A crash whose recorded call returns now is fixed, whatever fixed it."""
    marked = lifecycle.mark_fixed(crash, "returns")
    state = "marked fixed" if marked else "left open: it was recorded again meanwhile"
    print(f"caretaker: {crash.id}: the recorded call returns when replayed now; {state}")


def _named(crashes: Sequence[Crash]) -> list[Crash]:
    """Each crash with its failure named by its id, or id and exception when an id has two."""
    ids = [crash.id for crash in crashes]
    named = []
    for crash in crashes:
        name = crash.id
        if ids.count(name) > 1:
            name = f"{name} ({crash.data['exception']['type']}, {crash.data['signature'][:6]})"
        data = {**crash.data, "failure": {**crash.data["failure"], "nodeid": name}}
        named.append(replace(crash, data=data))
    return named


def _report(
    root: Path,
    settings: Settings,
    redactor: Redactor,
    crashes: Sequence[Crash],
    results: list[HealResult],
    transcripts: dict[str, str],
) -> list[Written]:
    """Patch, transcripts, with --write the written fixes, the history, and the summary; the
    fixes written."""
    fixes = selection.group(results)
    patch: Path | None = None
    notes: list[str] = []
    try:
        patch = report_files.write_patch(root, selection.patch(fixes))
        report_files.write_all(report_files.output_dir(root), transcripts, redactor)
    except OSError as error:
        notes.append(f"caretaker: could not write to {report_files.OUTPUT_DIR}/ ({error})")
    written: list[Written] = []
    if settings.write:
        written, more = write_fixes(fixes, root, settings, redactor=redactor)
        notes += more
    failures = {crash.failure.nodeid: crash.failure for crash in crashes}
    outcome = Healed(results, written, patch, transcripts)
    try:
        from pytest_caretaker.history import record_session

        if record_session(root, outcome, settings, redactor, failures, "runtime") is None:
            raise OSError
    except Exception:  # the history is a report; the heals stand without it
        notes.append("caretaker: could not append to .caretaker/history.jsonl")
    for note in notes:
        print(note)
    summary(Plain(sys.stdout), results, patch, root, written)
    return written
