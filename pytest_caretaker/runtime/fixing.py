"""Heal mode's repair of a live crash: the settings (as ``pytest --heal``'s), the chain with
the recorded call, its good calls and its tests as the proof (repair.py), and for a proven fix
that is not UNSURE: swapped into the running process, kept in the store by the function's id
and source hash, its patch and transcript written under .caretaker/runtime/, and the heal
appended to the history with its transcript kept in its session's folder, as every front end
keeps them. An UNSURE fix is only written under .caretaker/runtime/, for review."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_caretaker import selection
from pytest_caretaker.apply.rewrite import apply_edits
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import Edit, HealResult, NotApplied, Written
from pytest_caretaker.runtime.mode import Store
from pytest_caretaker.runtime.proof import proof_of
from pytest_caretaker.runtime.records import Crash, _slug
from pytest_caretaker.runtime.repair import Repairing, repair
from pytest_caretaker.runtime.settings import settings_for
from pytest_caretaker.runtime.store import code_of
from pytest_caretaker.runtime.swap import NotSwapped, swap
from pytest_caretaker.settings import SettingError, Settings

FOLDER = "runtime"


@dataclass(frozen=True)
class Healed:
    """What the heal history reads of one runtime heal (history.Outcome)."""

    results: Sequence[HealResult]
    written: Sequence[Written] = ()
    patch: Path | None = None
    transcripts: Mapping[str, str] = field(default_factory=dict)


def fix(id: str, crash: Crash, root: Path, key: str, store: Store) -> str | None:
    """Repair, prove, swap in and keep a fix; None when it is in place, else why not."""
    env = dict(os.environ)
    try:
        settings = settings_for(root, env)
    except SettingError as error:
        return str(error)
    redactor = Redactor.for_project(root, env)
    scratch = Path(tempfile.mkdtemp(prefix="caretaker-runtime-"))
    try:
        result, log = repair(Repairing(settings, root, scratch, redactor, env), crash)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    transcripts = {result.nodeid: redactor(log.render(crash.failure, result))}
    patch = _report(root, id, result, transcripts[result.nodeid])
    healed = Healed([result], (), patch, transcripts)
    _remember(root, settings, redactor, crash, healed)
    if not result.healed:
        return result.reason
    if result.unsure:  # a person decides: the fix waits in its patch, the exception goes on
        where = f" in {patch.relative_to(root)}" if patch is not None else ""
        doubt = result.candidate.doubt if result.candidate is not None else None
        said = doubt.reason if doubt is not None else "unsure"
        return f"its fix is UNSURE ({said}), so it is not swapped in; review it{where}"
    try:
        swap(result.edits, {change.path: change.after for change in result.changes}, root)
    except NotSwapped as why:
        return f"the proven fix cannot be swapped into the running process: {why}"
    try:
        store.save(key, code_of(result.edits, result.explanation))
    except Exception as error:  # a user's store (a database) may fail any way
        print(f"caretaker: the fix for {id} could not be kept: {error!r}", file=sys.stderr)
    where = f"; patch in {patch.relative_to(root)}" if patch is not None else ""
    said = result.explanation.strip()
    proof = proof_of(said)
    first = said.splitlines()[0] if said else ""
    first = first[: first.find(" Proved ")] if proof and " Proved " in first else first
    proof = f"; {proof}" if proof else ""
    print(
        f"caretaker: healed {id} ({result.repairer}): {first.rstrip('.')}{proof}{where}; "
        "retrying the call",
        file=sys.stderr,
        flush=True,
    )
    return None


def patched(edits: Sequence[Edit], root: Path) -> dict[str, bytes] | None:
    """Each file the edits change, as it reads with them; None when one does not apply."""
    files = ProjectFiles(root)
    changed: dict[str, bytes] = {}
    for path in dict.fromkeys(edit.path for edit in edits):
        source = files.get(path)
        if source is None:
            return None
        done = apply_edits(path, source.data, [edit for edit in edits if edit.path == path])
        if isinstance(done, NotApplied):
            return None
        changed[path] = done.after
    return changed


def _report(root: Path, id: str, result: HealResult, transcript: str) -> Path | None:
    """The fix's patch (when healed) and the transcript under .caretaker/runtime/."""
    folder = root / ".caretaker" / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{_slug(id)}.md").write_text(transcript, encoding="utf-8")
        if not result.healed:
            return None
        target = folder / f"{_slug(id)}.patch"
        target.write_bytes(selection.patch(selection.group([result])))
        return target
    except OSError as error:
        print(f"caretaker: could not write to {folder}: {error}", file=sys.stderr)
        return None


def _remember(
    root: Path, settings: Settings, redactor: Redactor, crash: Crash, healed: Healed
) -> None:
    from pytest_caretaker.history import record_session
    from pytest_caretaker.report import files

    failures = {crash.failure.nodeid: crash.failure}
    session = files.new_session()  # its transcript kept with the others, for caretaker report
    try:
        files.write_all(
            files.output_dir(root), healed.transcripts, None, session, settings.transcripts
        )
        record_session(root, healed, settings, redactor, failures, "runtime", session)
    except Exception:  # the history is a report; the heal stands without it
        print("caretaker: could not append to .caretaker/history.jsonl", file=sys.stderr)
