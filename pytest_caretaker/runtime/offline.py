"""``caretaker crashes heal``: repair recorded crashes after the fact, each fix proved by
replaying its recorded call (repair.py), and report as ``caretaker run`` does: the summary with
its closing line, .caretaker/heal.patch, a transcript per crash, the history; with --write the
fixes are written and committed (write/writer.py). Crashes marked fixed are left alone, and the
ones fixed now are marked (lifecycle.py). An UNSURE fix (proved by its recorded call alone:
proof.py) is in the patch and never written. The session's results go to
.caretaker/last-run.json (ci/last_run.py)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from pytest_caretaker import selection
from pytest_caretaker.ci.last_run import Ended, write_last_run
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

#: What becomes of an UNSURE runtime fix with --write: crashes heal has no review, so a person
#: applies it from the patch.
UNSURE_NOT_WRITTEN = (
    "UNSURE: not written; read it in .caretaker/heal.patch and apply it yourself "
    "(git apply .caretaker/heal.patch) if it is right"
)


def heal_crashes(args: argparse.Namespace, root: Path, crashes: Sequence[Crash]) -> int:
    """0 when every crash chosen is healed (not UNSURE: a person has to decide on that fix) or
    fixed, else 1; 2 for a bad setting. A crash marked fixed is not healed again; one whose call
    returns now is marked fixed; one whose fix is written is marked fixed with its commit
    (lifecycle.py). Every session but one with a bad
    setting leaves .caretaker/last-run.json."""
    env = dict(os.environ)
    settings = _settings(args, root, env)
    if settings is None:
        return 2
    redactor = Redactor.for_project(root, env)
    begun = time.monotonic()
    notes: list[str] = []  # the lines said besides the summary, for last-run.json
    named = _named(_open(crashes, notes))
    results: list[HealResult] = []
    transcripts: dict[str, str] = {}
    scratch = Path(tempfile.mkdtemp(prefix="caretaker-crashes-"))
    try:
        for index, crash in enumerate(named, 1):
            print(f"caretaker: healing {index}/{len(named)} {crash.id} …", flush=True)
            result, log = repair(Repairing(settings, root, scratch, redactor, env), crash)
            if result.reason == RETURNS:  # nothing to heal: no row that counts as not healed
                notes.append(_returns(crash))
                continue
            results.append(result)
            transcripts[result.nodeid] = redactor(log.render(crash.failure, result))
    except KeyboardInterrupt:
        print("caretaker: interrupted (Ctrl-C); nothing was written", file=sys.stderr)
        seconds = time.monotonic() - begun
        _leave(root, Ended("runtime", settings, redactor, None, notes, seconds, interrupted=True))
        return 130
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    outcome = _report(root, settings, redactor, named, results, transcripts) if results else None
    if outcome is not None:
        lifecycle.mark_written(named, outcome.written, redactor)
    _leave(root, Ended("runtime", settings, redactor, outcome, notes, time.monotonic() - begun))
    return 0 if all(result.healed and not result.unsure for result in results) else 1


def _settings(args: argparse.Namespace, root: Path, env: dict[str, str]) -> Settings | None:
    """The settings of the command line, the environment and the project; None, said, when
    one is bad."""
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
        return settings_for(root, env, cli)
    except SettingError as error:
        print(f"caretaker: {error}", file=sys.stderr)
        return None


def _open(crashes: Sequence[Crash], notes: list[str]) -> list[Crash]:
    """The crashes not marked fixed; each fixed one is said in a line (and a note) and left
    alone."""
    for crash in crashes:
        if lifecycle.fixed(crash) is not None:
            notes.append(
                f"caretaker: {crash.id} is fixed ({lifecycle.said(crash)}); not healed again "
                "(caretaker crashes clear --fixed removes it)"
            )
            print(notes[-1])
    return [crash for crash in crashes if lifecycle.fixed(crash) is None]


def _returns(crash: Crash) -> str:
    """A crash whose recorded call returns now is fixed, whatever fixed it: said, and the line."""
    marked = lifecycle.mark_fixed(crash, "returns")
    state = "marked fixed" if marked else "left open: it was recorded again meanwhile"
    line = f"caretaker: {crash.id}: the recorded call returns when replayed now; {state}"
    print(line)
    return line


def _leave(root: Path, ended: Ended) -> None:
    failed = write_last_run(root, ended)
    if failed is not None:
        print(failed)


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
) -> Healed:
    """Patch, transcripts, with --write the written fixes, the history, and the summary; what
    was healed and written."""
    fixes = selection.group(results)
    patch: Path | None = None
    notes: list[str] = []
    session = report_files.new_session()
    try:
        patch = report_files.write_patch(root, selection.patch(fixes))
        folder = report_files.output_dir(root)
        report_files.write_all(folder, transcripts, redactor, session, settings.transcripts)
    except OSError as error:
        notes.append(f"caretaker: could not write to {report_files.OUTPUT_DIR}/ ({error})")
    written: list[Written] = []
    if settings.write:
        sure = [fix for fix in fixes if not fix.unsure]
        written, more = write_fixes(sure, root, settings, redactor=redactor)
        written += [Written(fix, "skipped", UNSURE_NOT_WRITTEN) for fix in fixes if fix.unsure]
        notes += more
    failures = {crash.failure.nodeid: crash.failure for crash in crashes}
    outcome = Healed(results, written, patch, transcripts)
    try:
        from pytest_caretaker.history import record_session

        if record_session(root, outcome, settings, redactor, failures, "runtime", session) is None:
            raise OSError
    except Exception:  # the history is a report; the heals stand without it
        notes.append("caretaker: could not append to .caretaker/history.jsonl")
    for note in notes:
        print(note)
    summary(Plain(sys.stdout), results, patch, root, written)
    return outcome
