"""The filesystem a sandboxed process sees: built from an allow list, not a deny list.

``build`` runs in pid 1 of a sandbox's new namespaces (sandbox.enter), which own a mount and an
IPC namespace of their own. It mounts an empty tmpfs as the new root and puts in it only:

- the system (``/usr``, ``/bin``, ``/sbin``, ``/lib*``, ``/etc``) and what this interpreter runs
  from (its prefixes, every ``sys.path`` entry, every ``PATH`` folder), bound at their own paths;
- the paths the policy names (the project, the folder pytest was started in, the repository's
  git folders, the CA certificates: trust.py) and the scratch folder the runs write in, with
  the project's unread ``.env`` files (record/dotenvs.py) as empty read-only files, and git's
  config files as copies without credentials (record/gitdirs.py): a candidate that reads one
  finds nothing to print;
- a private ``/tmp``, ``/var/tmp``, ``/dev/shm`` (empty tmpfs), a ``/proc`` of the sandbox's own pid
  namespace, a minimal ``/dev`` (null, zero, full, random, urandom, and a private devpts for
  tests that open a pty), and ``$HOME`` as an empty folder;

then pivots into it and lets the old root go. So no socket file of the user's (tmux, screen,
ssh-agent, gpg-agent, D-Bus, docker, X11, git's credential cache, anything under
``$XDG_RUNTIME_DIR`` or ``~``) has a path inside, no process outside can be listed, and what a
run writes to ``/tmp`` or ``/dev/shm`` goes with the sandbox. Landlock (sandbox.restrict) still
decides what may be written, and forbids changing the mounts again.

A part the kernel refuses (a fresh proc, devpts) is left out, never replaced by the machine's;
``build`` returns what is missing, and the probe reports it. Standard library only: every
sandboxed child imports it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import sys
from collections.abc import Iterable, Iterator, Mapping

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME = 1024, 2048, 1 << 21
_MNT_DETACH = 2
#: pivot_root has no libc wrapper; its number differs between architectures.
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}

#: The system's folders, bound read-only (or recreated, where they are links into /usr).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
#: Devices bound from the machine's /dev: none of them reaches anything of the user's.
DEVICES = ("null", "zero", "full", "random", "urandom")
#: Machine facts libraries read (the CPU count of BLAS, for one); nothing of the user's.
FACTS = ("/sys/devices/system/cpu",)

#: The parts of the view, as the probe reports them.
PARTS = ("private /proc", "private ptys")


class ViewError(OSError):
    """The view could not be built: the process must not run candidate code."""


_libc: ctypes.CDLL | None = None


def _call(name: str, *args: object) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    if int(getattr(_libc, name)(*args)) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{name}: {os.strerror(error)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str = "") -> None:
    _call(
        "mount",
        _bytes(source),
        target.encode(),
        _bytes(kind),
        ctypes.c_ulong(flags),
        _bytes(data or None),
    )


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def supported() -> bool:
    """Whether this architecture's pivot_root is known (the view needs it)."""
    return platform.machine() in _PIVOT_ROOT


def visible(extra: Iterable[str]) -> list[str]:
    """The paths besides the system that a sandboxed process needs to read: extra (the project,
    where pytest started) and where this interpreter runs from. Absolute, existing; a folder
    that holds $HOME (or is /) is left out, so that $HOME stays empty."""
    home = os.path.realpath(os.path.expanduser("~"))
    found = [*extra, os.getcwd()]
    found += [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    found += [os.path.dirname(os.path.dirname(sys.executable))]
    found += [p for p in sys.path if p]
    found += list(_installed())
    found += [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    found += [venv for p in list(found) for venv in _environment(p)]
    chosen: list[str] = []
    for path in found:
        if not os.path.isabs(path) or not os.path.exists(path):
            continue
        for form in dict.fromkeys((os.path.abspath(path), os.path.realpath(path))):
            if form in extra or not _inside(home, form):
                chosen.append(form)
    return list(dict.fromkeys(chosen))


def _environment(folder: str) -> list[str]:
    """A virtual environment whose bin/ folder is this one (an activated venv on PATH, another
    interpreter a command runs), and the interpreter it was made from (pyvenv.cfg's home)."""
    root = os.path.dirname(folder.rstrip("/"))
    try:
        with open(os.path.join(root, "pyvenv.cfg"), encoding="utf-8") as config:
            lines = config.read().splitlines()
    except (OSError, ValueError):
        return []
    homes = [
        line.split("=", 1)[1].strip() for line in lines if line.split("=")[0].strip() == "home"
    ]
    return [root, *(os.path.dirname(home.rstrip("/")) for home in homes if home)]


def _installed() -> Iterator[str]:
    """Where the packages imported so far, and those of editable installs, live: an editable
    install's finder maps a package to a folder that is on no sys.path entry."""
    for name, module in list(sys.modules.items()):
        if "." in name:
            continue
        for folder in getattr(module, "__path__", None) or ():
            yield str(folder)
        filename = getattr(module, "__file__", None)
        if filename and not getattr(module, "__path__", None):
            yield filename
        if name.startswith("__editable__") and name.endswith("_finder"):
            yield from (str(v) for v in getattr(module, "MAPPING", {}).values())


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def build(
    scratch: str, paths: Iterable[str], home: str | None, covered: Mapping[str, str] = {}
) -> list[str]:
    """In pid 1 of new user, pid, mount and IPC namespaces: make the view this process's root.

    scratch: a folder that stays visible (and writable, as Landlock allows) at its own path,
    and where the new root is assembled; covered: files of the visible paths shown as another
    file ("": an empty one). Returns the parts the kernel refused (PARTS). Raises ViewError
    when the view cannot be built at all.
    """
    if not supported():
        raise ViewError(0, f"the sandbox's view does not know {platform.machine()}'s pivot_root")
    cwd = os.getcwd()
    new = os.path.join(scratch, f".view-{os.getpid()}")
    try:
        _mount(None, "/", None, _MS_REC | _MS_PRIVATE)  # nothing done here reaches outside
        os.makedirs(new, exist_ok=True)
        _mount("tmpfs", new, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755")
        missing = _populate(new, scratch, paths, home)
        _cover(new, covered)
        _pivot(new)
    except OSError as error:
        raise ViewError(error.errno, f"cannot build the sandbox's view: {error}") from None
    with contextlib.suppress(OSError):
        os.chdir(cwd)
    return missing


def _populate(new: str, scratch: str, paths: Iterable[str], home: str | None) -> list[str]:
    for top in SYSTEM:
        if os.path.islink(top):
            os.symlink(os.readlink(top), new + top)
        elif os.path.isdir(top):
            _bind(top, new, read_only=True)
    _tmpfs(new, "/tmp", "mode=1777")
    _tmpfs(new, "/var/tmp", "mode=1777")
    if home and home != "/" and not any(_inside(home, p) for p in (*SYSTEM, "/tmp")):
        _tmpfs(new, home, "mode=0700")
    missing = _dev(new)
    bound: list[str] = list(SYSTEM)
    for path in sorted({*paths, *FACTS}, key=len):
        if os.path.exists(path) and not any(_inside(path, b) for b in bound):
            _bind(path, new, read_only=True)
            bound.append(path)
    # Alone (not what is mounted under it: the new root itself), writable as Landlock allows.
    _bind(scratch, new, read_only=False, recursive=False)
    os.makedirs(new + "/proc", exist_ok=True)
    try:
        _mount("proc", new + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    except OSError:
        missing.append("private /proc")  # an empty folder: never the machine's
    return missing


def _cover(new: str, covered: Mapping[str, str]) -> None:
    """Bind a read-only file over each covered one (a regular file inside the view; not a link,
    whose target would be resolved outside it): the file named beside it, or ("") an empty
    one, so that each reads as that file does."""
    empty = new + "/.caretaker-empty"
    shown = {
        path: source or empty
        for path, source in covered.items()
        if os.path.isfile(path) and not os.path.islink(path)
    }
    if not shown:
        return
    os.close(os.open(empty, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444))
    for path, source in shown.items():
        if os.path.isfile(new + path):  # inside a bound path: the view holds it
            _mount(source, new + path, None, _MS_BIND)
            with contextlib.suppress(OSError):  # Landlock forbids the writes anyway
                flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _locked(new + path)
                _mount(None, new + path, None, flags)
    os.unlink(empty)  # the mounts keep the file; the root shows no trace of it


def _tmpfs(new: str, path: str, options: str) -> None:
    target = new + path
    os.makedirs(target, exist_ok=True)
    _mount("tmpfs", target, "tmpfs", _MS_NOSUID | _MS_NODEV, options)


def _bind(path: str, new: str, read_only: bool, recursive: bool = True) -> None:
    """Bind path (and, recursive, what is mounted under it) at its own path in the new root."""
    target = new + path
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.lexists(target):
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o600))
    _mount(path, target, None, _MS_BIND | (_MS_REC if recursive else 0))
    if read_only:  # Landlock forbids the writes anyway; this is the second lock
        with contextlib.suppress(OSError):  # a mount whose flags are locked may refuse
            _mount(None, target, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _locked(target))


def _locked(path: str) -> int:
    """The flags of path's mount that a user namespace may not clear: a remount keeps them."""
    flags = os.statvfs(path).f_flag
    pairs = (
        (os.ST_NOSUID, _MS_NOSUID),
        (os.ST_NODEV, _MS_NODEV),
        (os.ST_NOEXEC, _MS_NOEXEC),
        (os.ST_NOATIME, _MS_NOATIME),
        (os.ST_NODIRATIME, _MS_NODIRATIME),
        (os.ST_RELATIME, _MS_RELATIME),
    )
    return sum(ms for st, ms in pairs if flags & st)


def _dev(new: str) -> list[str]:
    """A minimal /dev: a few devices, the usual links, a private /dev/shm and devpts."""
    dev = new + "/dev"
    _tmpfs(new, "/dev", "mode=0755")
    for name in DEVICES:
        if os.path.exists("/dev/" + name):
            _bind("/dev/" + name, new, read_only=False)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, f"{dev}/{name}")
    _tmpfs(new, "/dev/shm", "mode=1777")
    os.makedirs(dev + "/pts")
    try:
        _mount(
            "devpts", dev + "/pts", "devpts", _MS_NOSUID | _MS_NOEXEC, "newinstance,ptmxmode=0666"
        )
    except OSError:
        return ["private ptys"]
    os.symlink("pts/ptmx", dev + "/ptmx")
    return []


def _pivot(new: str) -> None:
    """Make new this process's root; the old root is detached, so nothing of it stays reachable."""
    old = os.path.join(new, ".old-root")
    os.makedirs(old)
    _call("syscall", ctypes.c_long(_PIVOT_ROOT[platform.machine()]), new.encode(), old.encode())
    os.chdir("/")
    _call("umount2", b"/.old-root", ctypes.c_int(_MNT_DETACH))
    os.rmdir("/.old-root")
