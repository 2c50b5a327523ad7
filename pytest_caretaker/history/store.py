"""The history file: one JSON object a line in ``.caretaker/history.jsonl``, appended atomically
by any number of processes at once, rotated to ``history.1.jsonl`` when it grows past a bound.

An append is one ``os.write`` of one whole line to a file opened with ``O_APPEND``: the kernel
puts each write at the end in one piece, so lines from concurrent sessions (xdist controllers,
two terminals, CI jobs on one checkout) never interleave; it is made under an ``flock``, with the
check that the file ends a line. Rotation renames the file under the same lock, after checking
the size again, so two processes never rotate one file twice.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_caretaker.report.files import OUTPUT_DIR, output_dir
from pytest_caretaker.report.summary import HISTORY_FILE

try:  # POSIX; elsewhere two rotations at the same moment may lose the older file's lines
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: Bytes after which the history is rotated; one older file is kept, so the history holds
#: between MAX_BYTES and twice that (thousands of heals).
MAX_BYTES = 5_000_000
ROTATED = "history.1.jsonl"
LOCK = "history.lock"

Record = dict[str, Any]


def history_path(root: Path) -> Path:
    return root / OUTPUT_DIR / HISTORY_FILE


def append(root: Path, records: Iterable[Mapping[str, Any]], max_bytes: int = MAX_BYTES) -> Path:
    """Append records, one line each, to root's history; rotate it first when it is too big.
    Raises OSError when the folder or the file cannot be written."""
    folder = output_dir(root)
    target = folder / HISTORY_FILE
    _rotate_if_big(folder, max_bytes)
    lines = [
        (json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n").encode() for r in records
    ]
    lock = _locked(folder)
    try:
        fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if lines and not _ends_a_line(fd):  # a session killed mid-line: start a new one
                lines[0] = b"\n" + lines[0]
            for line in lines:
                _write_all(fd, line)
        finally:
            os.close(fd)
    finally:
        os.close(lock)  # closing releases the lock
    return target


def _locked(folder: Path) -> int:
    """The history's lock, held: the check that the file ends a line and the append after it
    are one step (else a reader of the last byte can see another process's write not yet
    there, and start a needless new line)."""
    fd = os.open(folder / LOCK, os.O_WRONLY | os.O_CREAT, 0o644)
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _ends_a_line(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size == 0 or not hasattr(os, "pread") or os.pread(fd, 1, size - 1) == b"\n"


def _write_all(fd: int, line: bytes) -> None:
    written = os.write(fd, line)  # the whole line, in one write: the atomic append
    while written < len(line):  # only a full disk or a signal splits it; finish the line then
        written += os.write(fd, line[written:])


def _rotate_if_big(folder: Path, max_bytes: int) -> None:
    target = folder / HISTORY_FILE
    if _size(target) < max_bytes:
        return
    fd = _locked(folder)
    try:
        if _size(target) >= max_bytes:  # another process may have rotated it meanwhile
            os.replace(target, folder / ROTATED)
    finally:
        os.close(fd)  # closing releases the lock


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


@dataclass
class History:
    """What was read: the records, oldest first, and how many lines could not be read."""

    records: list[Record] = field(default_factory=list)
    unreadable: int = 0
    files: list[Path] = field(default_factory=list)


def read(root: Path) -> History:
    """Root's history, the rotated file first; a line cut short or not JSON is counted, not
    fatal (a session killed mid-write, a hand edit)."""
    history = History()
    folder = root / OUTPUT_DIR
    for path in (folder / ROTATED, folder / HISTORY_FILE):
        if not path.is_file():
            continue
        history.files.append(path)
        for line in _lines(path):
            try:
                record = json.loads(line)
            except ValueError:
                history.unreadable += 1
                continue
            if isinstance(record, dict):
                history.records.append(record)
            else:
                history.unreadable += 1
    return history


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                yield line
