"""A crash's lifecycle: open while it happens; fixed once its fix is written (with the commit)
or once its recorded call returns when replayed; open again when it is recorded anew.

The state is the record's ``fixed`` key. records.write builds every record it rewrites without
it, so a crash that happens again after its fix (the fix was reverted, or a process still runs
the old code) is open again. ``caretaker crashes clear`` removes records.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Literal

from pytest_caretaker.record.redact import Redact
from pytest_caretaker.results import Written
from pytest_caretaker.runtime.records import Crash, _atomic, _read
from pytest_caretaker.write.message import subject

#: How a crash came to be fixed: its fix committed, written without a commit, or its recorded
#: call returning when replayed (fixed some other way, or its outcome depends on state).
How = Literal["committed", "written", "returns"]


def fixed(crash: Crash) -> dict[str, str] | None:
    """The record's fixed state (how, commit, subject, time), None while it is open."""
    state = crash.data.get("fixed")
    return {str(k): str(v) for k, v in state.items()} if isinstance(state, dict) else None


def status(crash: Crash) -> str:
    """The STATUS cell of ``caretaker crashes``."""
    state = fixed(crash)
    if state is None:
        return "open"
    if state.get("commit"):
        return f"fixed {state['commit'][:7]}"
    if state.get("how") == "written":
        return "fixed (not committed)"
    return "fixed (the call returns)"


def said(crash: Crash) -> str:
    """How a fixed crash was fixed, in a few words (for ``crashes heal``)."""
    state = fixed(crash) or {}
    if state.get("commit"):
        return f"by {state['commit'][:7]} {state.get('subject', '')}".rstrip()
    if state.get("how") == "written":
        return "by a fix written, not committed"
    return "its recorded call returned when replayed"


def mark_fixed(crash: Crash, how: How, commit: str = "", subject: str = "") -> bool:
    """Mark the record fixed; False (left open) when it is gone, or was recorded again since it
    was read: the crash happened again meanwhile, in code that did not have the fix yet."""
    data = _read(crash.path)
    if not data or data.get("count") != crash.data.get("count"):
        return False
    data["fixed"] = {
        "how": how,
        "commit": commit,
        "subject": subject,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    try:
        _atomic(crash.path, json.dumps(data, indent=1).encode("utf-8"))
    except OSError:
        return False
    return True


def clear(crashes: Sequence[Crash]) -> list[Crash]:
    """Remove the records (and their pickled calls); the ones removed."""
    cleared = []
    for crash in crashes:
        try:
            crash.path.unlink()
        except FileNotFoundError:
            continue
        crash.path.with_suffix(".pkl").unlink(missing_ok=True)
        cleared.append(crash)
    return cleared


def mark_written(crashes: Sequence[Crash], written: Sequence[Written], redact: Redact) -> None:
    """Mark fixed each crash whose fix was written, with the commit when there is one."""
    by_name = {crash.failure.nodeid: crash for crash in crashes}
    for done in written:
        if done.state not in ("committed", "written"):
            continue  # not written: still open
        title = redact(subject(done.fix, redact)) if done.commit else ""
        for name in done.fix.nodeids:
            if name in by_name:
                mark_fixed(by_name[name], done.state, done.commit, title)
