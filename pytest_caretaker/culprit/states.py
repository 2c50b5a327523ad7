"""States: the commit each ``--heal`` session ran at and what each test did there.

One JSON line a session in ``.caretaker/states.jsonl``, beside the history: HEAD, whether
tracked files differed from it (a pass on a dirty tree proves nothing about the commit), and
the tests that passed and failed, by file. Appended as the history is (one ``os.write`` of a
whole line, ``O_APPEND``, under an ``flock``), rotated to ``states.1.jsonl`` past MAX_BYTES.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_caretaker.report.files import OUTPUT_DIR, output_dir

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

FILE = "states.jsonl"
ROTATED = "states.1.jsonl"
MAX_BYTES = 5_000_000
VERSION = 1


@dataclass(frozen=True)
class State:
    head: str
    dirty: bool
    passed: frozenset[str]
    failed: frozenset[str]


def record(
    root: Path, head: str, dirty: bool, passed: Iterable[str], failed: Iterable[str]
) -> None:
    """Append one session's state. Raises OSError when it cannot be written."""
    line = {
        "v": VERSION,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "head": head,
        "dirty": dirty,
        "passed": _by_file(passed),
        "failed": _by_file(failed),
    }
    folder = output_dir(root)
    data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
    lock = os.open(folder / "states.lock", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        target = folder / FILE
        if target.exists() and target.stat().st_size > MAX_BYTES:
            os.replace(target, folder / ROTATED)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, data)
            while written < len(data):
                written += os.write(fd, data[written:])
        finally:
            os.close(fd)
    finally:
        os.close(lock)


def read(root: Path) -> list[State]:
    """Every state recorded under root, oldest first; lines that cannot be read are skipped."""
    found: list[State] = []
    for line in _lines(root / OUTPUT_DIR):
        try:
            data = json.loads(line)
            state = State(
                str(data["head"]),
                bool(data["dirty"]),
                frozenset(_ids(data.get("passed", {}))),
                frozenset(_ids(data.get("failed", {}))),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
        found.append(state)
    return found


def _lines(folder: Path) -> Iterator[str]:
    for name in (ROTATED, FILE):
        try:
            with (folder / name).open(encoding="utf-8", errors="replace") as handle:
                yield from (line for line in handle if line.strip())
        except OSError:
            continue


def _by_file(nodeids: Iterable[str]) -> dict[str, list[str]]:
    """Node ids grouped by file: a file's path is written once, not once a test."""
    grouped: dict[str, list[str]] = {}
    for nodeid in nodeids:
        path, sep, rest = nodeid.partition("::")
        grouped.setdefault(path, []).append(rest if sep else "")
    return grouped


def _ids(grouped: dict[str, list[str]]) -> Iterator[str]:
    for path, names in grouped.items():
        for name in names:
            yield f"{path}::{name}" if name else path


@dataclass(frozen=True)
class Known:
    """What the states say of one test along HEAD's first-parent line (newest first)."""

    green: str | None  # the latest commit on the line where it passed on a clean tree
    red: tuple[str, ...]  # commits newer than that where it failed on a clean tree


def known(states: list[State], nodeid: str, line: list[str]) -> Known:
    """The last green commit of nodeid on line (HEAD's first parents), from clean states."""
    passed = {s.head for s in states if not s.dirty and nodeid in s.passed}
    failed = {s.head for s in states if not s.dirty and nodeid in s.failed}
    red: list[str] = []
    for sha in line:
        if sha in passed and sha not in failed:
            return Known(sha, tuple(red))
        if sha in failed:
            red.append(sha)
    return Known(None, tuple(red))
