"""The sandbox every run of candidate code goes through on Linux (``--heal-sandbox``).

A server that runs candidates (worker.py --serve, trial_server.py, or one fresh worker) first
calls ``enter``: its process unshares a user, a pid and (unless the suite needs it) a network
namespace, and forks; the child goes on as pid 1 of the new pid namespace, the parent only waits
and exits as it did. So nothing a run starts can outlive the server (the kernel kills a pid
namespace whole when its pid 1 ends), nothing inside can name or signal a process outside, the
network is a loopback of its own, and no capability of the real user (root's included) is left
to raise a limit or undo a namespace. The server then calls ``restrict`` once for itself, and each
run forked from it calls it again for its own, narrower layer: Landlock makes every path read-only
but the run's own scratch folder, and hides the credentials under ``$HOME`` and the system's
(what is hidden, and what is shown in the view, is the policy: policy.py); hard
limits cap memory, file size and core dumps. After each run the server kills whatever the run
left behind (``reap``). A fault in any step ends the process: candidate code
never runs half-confined.

Like channel.py it depends on the standard library alone: both sides import it. probe.py tries
it for real before a session relies on it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import struct
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NoReturn

from pytest_caretaker.verify import landlock, pids, view
from pytest_caretaker.verify.protocol import SandboxPolicy

_CLONE_NEWNS = 0x00020000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000

#: Devices a run may write besides its scratch folder.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm")
#: Bytes one file written by a run may reach; core dumps are off.
MAX_FILE_SIZE = 256 << 20


class SandboxError(OSError):
    """A step of confinement failed: the process must not go on to run candidate code."""


def enter(rules: SandboxPolicy, visible: Sequence[str] = ()) -> list[str]:
    """Go on as pid 1 of new user, pid, mount, IPC and (unless the policy keeps the network)
    network namespaces, in the filesystem view (view.py) of the policy's visible paths, the
    extra visible ones and this interpreter's.

    Call in a single-threaded process. This process becomes a waiter that never returns: it
    exits as its child does. Raises SandboxError when the kernel refuses; returns the parts of
    the view the kernel refused (view.PARTS).
    """
    network = rules["network"]
    paths = view.visible([*rules["visible"], *visible])  # before: the old root has them
    home = os.path.expanduser("~")
    uid, gid = os.geteuid(), os.getegid()
    cgroup = pids.join()  # before the user namespace: it takes root's right to make one
    flags = _CLONE_NEWUSER | _CLONE_NEWPID | _CLONE_NEWNS | _CLONE_NEWIPC
    flags |= 0 if network else _CLONE_NEWNET
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        error = ctypes.get_errno()
        raise SandboxError(error, f"cannot create namespaces: {os.strerror(error)}")
    try:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    except OSError as error:
        message = f"cannot map the user into its namespace: {error}"
        raise SandboxError(error.errno, message) from None
    pid = os.fork()
    if pid != 0:
        _mirror(pid, cgroup)
    if not network:
        _loopback_up()
    try:
        covered = {path: "" for path in rules.get("blank", [])}
        covered.update(rules.get("shown", {}))
        return view.build(rules["scratch"], paths, home, covered)
    except view.ViewError as error:
        raise SandboxError(error.errno, str(error.strerror)) from None


def _loopback_up() -> None:
    """Bring up the new network namespace's loopback: tests that serve on 127.0.0.1 still can."""
    siocsifflags, up_loopback_running = 0x8914, 0x1 | 0x8 | 0x40
    request = struct.pack("16sH14s", b"lo", up_loopback_running, b"")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        import fcntl

        fcntl.ioctl(sock.fileno(), siocsifflags, request)


def _mirror(pid: int, cgroup: Path | None) -> NoReturn:
    """Wait for pid, then end this process the way pid ended."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    pids.leave(cgroup)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.waitstatus_to_exitcode(status))


def restrict(rules: SandboxPolicy, writable: Sequence[str]) -> None:
    """Add a Landlock layer: all but the hidden paths read-only, writable (and devices) writable.

    The readable paths are listed once, before the first layer (under it the root folder can no
    longer be listed), and kept for the layers of forked runs. Raises SandboxError when the
    kernel refuses.
    """
    global _readable
    if _readable is None:
        _readable = readable(rules["hidden"])
    paths, folders = _readable
    try:
        landlock.restrict(paths, [*writable, *DEVICES], folders)
    except OSError as error:
        raise SandboxError(error.errno, f"cannot restrict file access: {error.strerror}") from None


_readable: tuple[list[str], list[str]] | None = None


def readable(hidden: Iterable[str]) -> tuple[list[str], list[str]]:
    """The paths whose hierarchies cover the whole filesystem except the hidden paths, and the
    folders on the way to a hidden path, which can be listed (a hidden path's name is no secret)
    but whose files are readable only through the first list."""
    real = {os.path.realpath(path) for path in hidden if os.path.lexists(path)}
    granted: list[str] = []
    listed: list[str] = []
    _grant("/", real, granted, listed)
    return granted, listed


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _grant(folder: str, hidden: set[str], granted: list[str], listed: list[str]) -> None:
    if not any(_inside(path, folder) for path in hidden):
        granted.append(folder)
        return
    listed.append(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        path = entry.path
        if path in hidden:
            continue
        if entry.is_symlink():
            target = os.path.realpath(path)
            if not any(_inside(h, target) or _inside(target, h) for h in hidden):
                granted.append(path)
        elif entry.is_dir(follow_symlinks=False):
            _grant(path, hidden, granted, listed)
        else:
            granted.append(path)


def confine_server(rules: SandboxPolicy) -> None:
    """Make this (single-threaded) process a sandboxed server: pid 1 of its own namespaces,
    writing only under the scratch folder, its temp files there too."""
    enter(rules)
    restrict(rules, [rules["scratch"]])
    _temp_in(tempfile.mkdtemp(prefix="server-", dir=rules["scratch"]))


def _temp_in(folder: str) -> None:
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None


def confine_run(rules: SandboxPolicy, workdir: str, headroom: int) -> None:
    """Confine a forked run: its own Landlock layer (writes only to workdir), hard limits on
    memory (headroom bytes more than now), file size and core dumps, its temp files in workdir,
    and no stdin to read the server's requests from."""
    restrict(rules, [workdir])
    import resource

    with open("/proc/self/statm", encoding="ascii") as statm:
        size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE") + headroom
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_SIZE, MAX_FILE_SIZE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.geteuid() != 0:  # counted per user, so on top of what the user already runs
        tasks = len(os.listdir("/proc")) + pids.MAX_TASKS
        resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails, it does not kill
    temp = os.path.join(workdir, "tmp")
    os.makedirs(temp, exist_ok=True)
    _temp_in(temp)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def reap() -> None:
    """In pid 1 of a sandbox: kill every other process of the namespace and wait for them all.

    Does nothing anywhere else (in a process that is not a namespace's pid 1, kill(-1) would
    reach every process of the user).
    """
    if os.getpid() != 1:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(-1, signal.SIGKILL)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue
