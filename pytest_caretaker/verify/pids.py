"""A cap on the processes (and threads) a sandbox may have at once.

For an ordinary user RLIMIT_NPROC does it (sandbox.confine_run sets it); for root the kernel
ignores that limit, so a sandboxed server started by root joins a pids cgroup of its own first,
while it still may (cgroup v1's pids hierarchy, or v2 where the pids controller is enabled for
children). Where neither can be made the cap is missing and nothing else changes: the pid
namespace still ends every process at the end of the server. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

#: Processes and threads one sandboxed server may run at once (test suites start pools).
MAX_TASKS = 1024
_BASES = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))
_PREFIX = "caretaker-"


def join(limit: int = MAX_TASKS) -> Path | None:
    """As root: move this process into a new pids cgroup capped at limit; its folder, or None."""
    if os.geteuid() != 0:
        return None
    for base in _BASES:
        if not (base / "cgroup.procs").exists():
            continue
        _remove_stale(base)
        folder = base / f"{_PREFIX}{os.getpid()}"
        try:
            folder.mkdir()
        except OSError:
            continue
        try:
            (folder / "pids.max").write_text(str(limit))
            (folder / "cgroup.procs").write_text(str(os.getpid()))
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            continue
        return folder
    return None


def leave(folder: Path | None) -> None:
    """Move this process back to the parent cgroup and remove the one it made (when empty)."""
    if folder is None:
        return
    with contextlib.suppress(OSError):
        (folder.parent / "cgroup.procs").write_text(str(os.getpid()))
        folder.rmdir()


def _remove_stale(base: Path) -> None:
    """Remove the empty cgroups of servers that were killed before they could."""
    with contextlib.suppress(OSError):
        for folder in base.glob(f"{_PREFIX}*"):
            with contextlib.suppress(OSError):
                if not (folder / "cgroup.procs").read_text().strip():
                    folder.rmdir()
