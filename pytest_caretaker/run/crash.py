"""A command's crash as the engine's input: a ``results.Failure`` from the hook's record
(frames with redacted locals), else from the traceback the command printed."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.record.failure import MAX_OUTPUT, from_data
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import Failure, Frame

_FRAME = re.compile(r'^  File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)', re.M)
_HEADER = "Traceback (most recent call last):"


def recorded(record: Path, nodeid: str, output: str, redactor: Redactor) -> Failure | None:
    """The failure the command's hook wrote, or None when it wrote none."""
    try:
        text = record.read_text(encoding="utf-8")
    except OSError:
        return None
    return from_record(text, nodeid, output, redactor)


def from_record(text: str, nodeid: str, output: str, redactor: Redactor) -> Failure | None:
    """The failure of a record's JSON text, or None when there is none to read."""
    try:
        failure = from_data(json.loads(text))
    except (ValueError, KeyError, TypeError):
        return None
    output = redactor(output[-MAX_OUTPUT:])
    return replace(failure, nodeid=nodeid, output=output, subject=crashed(nodeid))


def crashed(name: str) -> str:
    """The prompt's opening for a command's crash."""
    return f"The command `{name}` crashed."


def parsed(output: str, root: Path, nodeid: str, path: str, redactor: Redactor) -> Failure | None:
    """The failure of the last traceback in output (no locals), or None when it shows none."""
    start = output.rfind(_HEADER)
    if start < 0:
        return None
    text = output[start:]
    frames = tuple(
        Frame(rel, int(found["line"]), found["name"])
        for found in _FRAME.finditer(text)
        if (rel := project_relpath(found["path"], root)) is not None
    )
    last = _exception_line(text)
    exc_type, _, message = last.partition(":")
    return Failure(
        nodeid=nodeid,
        when="call",
        path=path,
        exc_type=exc_type.strip().rpartition(".")[2] or "Exception",
        message=redactor(message.strip()),
        longrepr=redactor(text[-6_000:]),
        frames=frames,
        output=redactor(output[-MAX_OUTPUT:]),
        subject=crashed(nodeid),
    )


def _exception_line(traceback: str) -> str:
    """The traceback's last line that is not indented: ``ValueError: bad value``."""
    lines = [line for line in traceback.splitlines() if line.strip()]
    for line in reversed(lines):
        if not line.startswith((" ", "\t", "^", "~")):
            return line
    return ""
