"""Fix after fix: the findings of a failing command, repaired one at a time, each on top of the
fixes verified before it, until the command passes, every finding was tried, or --iterations
findings were.

Each verified fix joins the base (the files as the fixes so far leave them, in memory); with
--write it is written and committed at once (one commit per fix, with its entry in the --log
file when one is named), and the command is run again with the base to see what it reports
next. A Python crash comes from the record of the hook (the first run) or of child.py (the
runs with fixes), with its locals, else from its printed traceback.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from pytest_caretaker.results import Failure, FileChange, Fix, HealResult, Written
from pytest_caretaker.run import crash
from pytest_caretaker.run.command import Ran, Run, shown
from pytest_caretaker.run.findings import Key, key, keys, unique
from pytest_caretaker.run.repair import Repairs
from pytest_caretaker.text import plural
from pytest_caretaker.write.writer import write_fixes


@dataclass
class Healing:
    """What the loop did: every finding tried, its result and transcript, and what was written."""

    results: list[HealResult] = field(default_factory=list)
    failures: dict[str, Failure] = field(default_factory=dict)
    logs: dict[str, str] = field(default_factory=dict)
    written: list[Written] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    base: dict[str, bytes] = field(default_factory=dict)  # each changed file as the fixes leave it
    originals: dict[str, bytes] = field(default_factory=dict)  # and as it was
    passes: bool = False  # the command passes with the fixes
    begun: float = field(default_factory=time.monotonic)  # when healing began, for its time

    @property
    def changes(self) -> list[FileChange]:
        """Each changed file from its original to its final bytes (the patch of all fixes)."""
        return [FileChange(rel, self.originals[rel], self.base[rel]) for rel in sorted(self.base)]


def heal_findings(
    run: Run, repairs: Repairs, first: Ran, record: Failure | None, done: Healing
) -> None:
    """Fill done in as each finding is tried (so that Ctrl-C keeps what was done)."""
    taken: set[str] = set()
    tried: set[Key] = set()
    seen: set[Key] = set()
    output = first.output
    for _ in range(run.iterations):
        found = repairs.findings(output, done.base)
        if record is not None and record.frames:  # the crash as the hook saw it: with locals
            found = [record, *(f for f in found if key(f) != key(record))]
            record = None
        untried = [failure for failure in found if key(failure) not in tried]
        if not untried:
            break
        failure = unique(untried[:1], taken)[0]
        tried.add(key(failure))
        result, log = repairs.repair(failure, done.base, keys(found), frozenset(seen))
        seen.update(keys(found))
        done.results.append(result)
        done.failures[failure.nodeid] = failure
        done.logs[failure.nodeid] = log.render(failure, result)
        if not result.healed:
            continue
        for change in result.changes:
            done.originals.setdefault(change.path, change.before)
            done.base[change.path] = change.after
        if run.settings.write and not _write(run, done, result):
            break  # the files on disk are not the base any more: stop here
        again = repairs.rerun(done.base)
        if again.status == 0 and not again.timed_out:
            done.passes = True
            break
        output = again.output
        name = shown(run.argv)
        record = (
            crash.from_record(again.record, name, output, run.redactor) if again.record else None
        )
    else:
        left = [f for f in repairs.findings(output, done.base) if key(f) not in tried]
        if left:
            done.notes.append(
                f"caretaker: stopped after {plural(run.iterations, 'finding')} (--iterations); "
                f"the command still reports {len(left)} more"
            )


def _write(run: Run, done: Healing, result: HealResult) -> bool:
    """Write (and commit) one fix, with its log entry; whether it is on disk."""
    fix = Fix((result,))
    if run.log is not None and result.candidate is not None:
        entry = _log_change(run, result)
        if entry is not None:
            candidate = replace(result.candidate, changes=(*result.changes, entry))
            fix = Fix((replace(result, candidate=candidate),))
    written, notes = write_fixes(
        [fix], run.root, run.settings, redactor=run.redactor, command=shown(run.argv)
    )
    done.written += written
    done.notes += notes
    return any(w.state in ("written", "committed") for w in written)


def _log_change(run: Run, result: HealResult) -> FileChange | None:
    """The log file with this fix's entry appended; None when it cannot be read."""
    assert run.log is not None
    path = run.root / run.log
    try:
        before = path.read_bytes() if path.exists() else b""
    except OSError:
        return None
    heading = b"" if before.strip() else b"# Fixes\n\nWritten by `caretaker run --log`.\n"
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    files = ", ".join(f"`{edit.path}` (`{edit.qualname}`)" for edit in result.edits)
    entry = (
        f"\n## {result.nodeid}\n\n"
        f"{when} · `caretaker run -- {shown(run.argv)}` · {result.repairer or 'builtin'}\n\n"
        f"Changed {files}.\n\n{run.redactor(result.explanation).strip()}\n"
    )
    separator = b"" if not before or before.endswith(b"\n") else b"\n"
    return FileChange(run.log, before, before + separator + heading + entry.encode("utf-8"))
