"""A fix memory shards share: ``CARETAKER_FIX_MEMORY`` names a folder, and memory.py's fixes are
kept in its ``fixes.json`` instead of pytest's cache of the project.

Shards of one suite run the same code: a fix one shard proved for a bug is what another shard
needs for its own tests of that bug. With the memory in a folder both reach (a shared volume, a
folder restored from a CI cache), the second shard tries the first one's fix before any repair,
proved again like every remembered fix (memory.py recalls a fix by the functions it replaced,
not only by the test it healed). Writing merges: what another shard saved since this one read is
kept, under an exclusive lock of the file (``fcntl``; elsewhere, the last writer's entries for a
failure win). Standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

#: The variable that names the shared folder.
VARIABLE = "CARETAKER_FIX_MEMORY"
FILE = "fixes.json"


def shared(env: Mapping[str, str] = os.environ) -> SharedCache | None:
    """The shared memory the environment names, if it does."""
    given = env.get(VARIABLE)
    return SharedCache(Path(given).expanduser()) if given else None


class SharedCache:
    """pytest's cache's get/set (memory.Cache) on one JSON file of a folder."""

    def __init__(self, folder: Path, per_failure: int = 3) -> None:
        self.path = folder / FILE
        self.per_failure = per_failure

    def get(self, key: str, default: Any) -> Any:
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return default
        return stored.get(key, default) if isinstance(stored, dict) else default

    def set(self, key: str, value: object) -> None:
        """Store value under key, merged with what is there now: each failure's entries are
        this session's first, then the others' it does not hold (at most per_failure)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(self.path.with_name(FILE + ".lock")):
            there = self.get(key, {})
            merged = dict(there) if isinstance(there, dict) else {}
            for name, entries in dict(value).items():  # type: ignore[call-overload]
                others = merged.get(name, [])
                others = [e for e in others if e not in entries] if isinstance(others, list) else []
                merged[name] = [*entries, *others][: self.per_failure]
            try:
                stored = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                stored = {}
            stored = stored if isinstance(stored, dict) else {}
            draft = self.path.with_name(f".{FILE}.{os.getpid()}")
            draft.write_text(json.dumps({**stored, key: merged}), encoding="utf-8")
            draft.replace(self.path)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock, the last writer wins
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
