"""What an interrupted --heal-write leaves behind is removed by the next one, and said so.

A kill (SIGKILL, a closed terminal, an out-of-memory killer) cannot be caught: it may leave an
atomic write's temporary file (``.calc.py.<pid>.<random>.caretaker``) and, when it lands while
caretaker's git is running, git's ``index.lock`` (and the ``next-index-<pid>.lock`` of a partial
commit), after which every git command in the repository refuses to run. Before it writes
anything, a run records a journal, ``.caretaker/writing-<pid>.json``: its process (pid and start
time, so a reused pid is not taken for it), its git directory, and each file it is about to
write. A clean end removes it. A journal whose process is gone says what to clean:

- its temporary files: named with its pid, so never another live run's;
- ``index.lock`` and its ``next-index-<pid>.lock``, only when made after the journal, and only when
  no git process is running in the repository (another git, an editor open on ``git commit``,
  holds the same lock: that one is never removed). Where running processes cannot be listed
  (no ``/proc``), the lock is left and the note says how to remove it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

from pytest_caretaker.report.files import output_dir

JOURNAL = re.compile(r"writing-(\d+)\.json")
PROC = Path("/proc")


def temporary_prefix(name: str) -> str:
    """The prefix of atomic_write's temporary files for a file called name, in this process."""
    return f".{name}.{os.getpid()}."


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot, or None where /proc cannot say."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    return None if len(fields) < 20 or fields[0] == "Z" else fields[19]


def alive(pid: int, start: str | None) -> bool:
    """Whether the process that wrote a journal still runs (not a later one with its pid)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    if start is None:  # nothing to tell a reused pid by; this process has no journal yet
        return pid != os.getpid()
    return _start_time(pid) == start  # None: a zombie, or gone since


class Journal:
    """This run's record of what it may leave behind; removed when writing ends. Where it
    cannot be written (a read-only project) writing goes on without it, as it would have."""

    def __init__(self, root: Path, git: tuple[Path, Path] | None) -> None:
        """git: the work tree's top and its git directory, when caretaker's git may run."""
        self.path: Path | None = root / ".caretaker" / f"writing-{os.getpid()}.json"
        self.record: dict[str, object] = {
            "pid": os.getpid(),
            "start": _start_time(os.getpid()),
            "created": time.time(),
            "top": str(git[0]) if git else None,
            "git_dir": str(git[1]) if git else None,
            "targets": [],
        }
        self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            output_dir(self.path.parent.parent)
            temporary = self.path.with_suffix(".tmp")
            temporary.write_text(json.dumps(self.record))
            os.replace(temporary, self.path)
        except OSError:
            self.close()
            self.path = None

    def expect(self, paths: list[Path]) -> None:
        """Record files about to be written, before their temporary files can exist."""
        targets = self.record["targets"]
        assert isinstance(targets, list)
        new = [str(path.resolve()) for path in paths if str(path.resolve()) not in targets]
        if new:
            targets += new
            self._save()

    def close(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)


def recover(root: Path) -> list[str]:
    """Clean what each interrupted run left (see the module's doc); one note per run cleaned."""
    try:
        journals = sorted((root / ".caretaker").glob("writing-*.json"))
    except OSError:
        return []
    notes: list[str] = []
    for path in journals:
        match = JOURNAL.fullmatch(path.name)
        try:
            record = json.loads(path.read_text())
            pid = int(record["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        start = record.get("start")
        if match is None or alive(pid, start if isinstance(start, str) else None):
            continue
        removed, kept = _clean(record, pid)
        if kept is None:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
        names = ", ".join(_shown(root, p) for p in removed)
        left = f"caretaker: an interrupted --heal-write (pid {pid}) left "
        if kept is not None:
            also = f" (removed {names})" if removed else ""
            notes.append(
                f"{left}{_shown(root, kept)}{also}; kept it: a git command may be "
                "running in this repository; remove the file if none is"
            )
        elif removed:
            notes.append(f"{left}{names}; removed")
    return notes


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _clean(record: dict[str, object], pid: int) -> tuple[list[Path], Path | None]:
    """Remove what the dead run left: what was removed, and the lock kept, if one was."""
    removed = [path for path in _temporaries(record, pid) if _unlink(path)]
    top, git_dir = record.get("top"), record.get("git_dir")
    if not isinstance(top, str) or not isinstance(git_dir, str):
        return removed, None
    created = record.get("created")
    since = float(created) if isinstance(created, (int, float)) else 0.0
    locks = [lock for lock in _locks(Path(git_dir)) if _made_since(lock, since)]
    if not locks:
        return removed, None
    if _git_running(Path(top), Path(git_dir)) is not False:
        return removed, locks[0]
    return removed + [lock for lock in locks if _unlink(lock)], None


def _temporaries(record: dict[str, object], pid: int) -> Iterator[Path]:
    targets = record.get("targets")
    for target in (Path(str(t)) for t in targets) if isinstance(targets, list) else ():
        pattern = re.compile(rf"\.{re.escape(target.name)}\.{pid}\.[A-Za-z0-9_]+\.caretaker")
        try:
            names = os.listdir(target.parent)
        except OSError:
            continue
        yield from (target.parent / n for n in sorted(names) if pattern.fullmatch(n))


def _locks(git_dir: Path) -> list[Path]:
    found = [git_dir / "index.lock"] if (git_dir / "index.lock").exists() else []
    for path in sorted(git_dir.glob("next-index-*.lock")):
        number = path.name.removeprefix("next-index-").removesuffix(".lock")
        if number.isdigit() and not alive(int(number), None):
            found.append(path)
    return found


def _made_since(path: Path, created: float) -> bool:
    try:
        return path.stat().st_mtime >= created - 1  # file systems with coarse timestamps
    except OSError:
        return False


def _git_running(top: Path, git_dir: Path) -> bool | None:
    """Whether a git process works in the repository (its working directory is in the work
    tree or the git directory); None when processes cannot be listed."""
    if not (PROC / "self").exists():
        return None
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if not (entry / "comm").read_text().strip().startswith("git"):
                continue
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if any(place == cwd or place in cwd.parents for place in (top, git_dir)):
            return True
    return False


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True
