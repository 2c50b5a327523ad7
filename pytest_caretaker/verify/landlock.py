"""Landlock, the Linux security module that lets an unprivileged process restrict itself.

A thin ctypes binding of its three system calls (no dependency): ``abi()`` tells which version
the kernel speaks (0: none), ``restrict(readable, writable)`` adds a layer to this process's
domain in which only the readable paths can be read (and executed) and only the writable ones
written, and which its children inherit. From ABI 6 the layer is also scoped: processes inside
cannot signal processes outside it, nor reach their abstract UNIX sockets. Root is bound like
anyone else; a layer can never be removed, only narrowed by another.

The numbers are the kernel's uapi (include/uapi/linux/landlock.h); the system call numbers are
the same on every architecture that has them.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Iterable

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

#: The rights that apply to a file (the others only to a directory's entries).
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ = EXECUTE | READ_FILE | READ_DIR


class LandlockError(OSError):
    """The kernel refused to build or enforce the ruleset."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc: ctypes.CDLL | None = None


def _syscall(*args: object) -> int:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    result = int(_libc.syscall(*args))
    if result < 0:
        error = ctypes.get_errno()
        raise LandlockError(error, os.strerror(error))
    return result


def abi() -> int:
    """The Landlock ABI version this kernel offers, 0 when it offers none (or is not Linux)."""
    try:
        return _syscall(
            ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(1)
        )
    except (LandlockError, OSError, AttributeError):
        return 0


def handled(version: int) -> int:
    """Every filesystem right the given ABI knows: all of them are denied unless granted."""
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if version >= 2:
        rights |= 1 << 13  # refer: links and renames across folders
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(
    readable: Iterable[str], writable: Iterable[str], listable: Iterable[str] = ()
) -> None:
    """Add a layer: only readable paths may be read, only writable ones also changed, and the
    folders under listable only listed (their files are not readable unless granted otherwise).

    Paths that do not exist are skipped. Raises LandlockError when the kernel refuses.
    """
    version = abi()
    if version < 1:
        raise LandlockError(0, "this kernel has no Landlock")
    rights = handled(version)
    attr = _RulesetAttr(rights, 0, SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL)
    size = ctypes.sizeof(attr) if version >= 6 else 8
    ruleset = _syscall(
        ctypes.c_long(_CREATE_RULESET),
        ctypes.byref(attr),
        ctypes.c_size_t(size),
        ctypes.c_uint32(0),
    )
    try:
        for path in listable:
            _allow(ruleset, path, READ_DIR)
        for path in readable:
            _allow(ruleset, path, READ & rights)
        for path in writable:
            _allow(ruleset, path, rights)
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        _syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone, or a dangling link: nothing to grant
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= _FILE_RIGHTS
        rule = _PathBeneath(rights, fd)
        _syscall(
            ctypes.c_long(_ADD_RULE),
            ctypes.c_int(ruleset),
            ctypes.c_int(_RULE_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_uint32(0),
        )
    finally:
        os.close(fd)
