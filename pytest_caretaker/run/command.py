"""Run a command the way ``caretaker run`` does, and read what a Python command runs.

Every run gets /dev/null as stdin (nobody is there to answer a prompt), its own process group
(a timeout kills all it started) and a bounded output: the last MAX_OUTPUT bytes are kept, so a
command that prints megabytes costs no memory.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from pytest_caretaker.settings import Settings

if TYPE_CHECKING:
    from pytest_caretaker.record.redact import Redactor

#: Bytes of a run's output kept (its end: where a traceback is).
MAX_OUTPUT = 256 << 10
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?$")
#: The interpreter's options that take a value (``-W error``, ``-X dev``).
_VALUED = ("-W", "-X", "-Q")


@dataclass(frozen=True)
class Target:
    """What a Python command runs: a script (kind "path") or a module (kind "module")."""

    interpreter: str
    options: tuple[str, ...]  # the interpreter's own, before the target
    kind: str
    name: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Ran:
    status: int  # the exit status; 128 + N when killed by signal N
    output: str  # its last MAX_OUTPUT bytes, stdout and stderr together
    seconds: float
    timed_out: bool = False
    #: The crash as the child recorded it (run/hook.py's JSON), when it crashed; "" otherwise.
    record: str = ""


#: Exit statuses of caretaker itself, as shells use them.
NOT_FOUND = 127
NOT_EXECUTABLE = 126
TIMED_OUT = 124
INTERRUPTED = 130  # by Ctrl-C


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    root: Path
    settings: Settings
    env: Mapping[str, str]
    out: TextIO = field(default_factory=lambda: sys.stdout)
    tests: bool | None = None  # rerun the project's tests with each fix; None: when it has some


#: Findings tried in one run when --iterations is not given.
DEFAULT_ITERATIONS = 5


@dataclass(frozen=True)
class Run:
    """How the failing command's findings are healed (loop.py)."""

    argv: tuple[str, ...]
    root: Path
    settings: Settings
    redactor: Redactor
    iterations: int = DEFAULT_ITERATIONS
    log: str | None = None  # the Markdown file each written fix is logged in (--log)


def start(command: Command, env: Mapping[str, str]) -> Ran | int:
    """The run, or (said in one line) the exit status when the command did not run to its end."""
    name = shown(command.argv)
    timeout = command.settings.timeout
    try:
        ran = launch(command.argv, command.root, env, timeout)
    except FileNotFoundError:
        print(f"caretaker: command not found: {command.argv[0]}", file=sys.stderr)
        return NOT_FOUND
    except PermissionError:
        print(f"caretaker: command not executable: {command.argv[0]}", file=sys.stderr)
        return NOT_EXECUTABLE
    if ran.timed_out:
        print(
            f"caretaker: {name} did not finish in {timeout:g} s and was stopped (--timeout); "
            "nothing was healed",
            file=sys.stderr,
        )
        return TIMED_OUT
    return ran


def shown(argv: Sequence[str]) -> str:
    """The command as the user would type it: the interpreter by its name, not its path."""
    first = Path(argv[0]).name if _PYTHON.fullmatch(Path(argv[0]).name) else argv[0]
    return shlex.join([first, *argv[1:]])


def python_target(argv: Sequence[str]) -> Target | None:
    """The script or module a ``python [OPTIONS] script.py|-m module ARGS`` command runs; None
    for any other command (``-c``, a console script, another program)."""
    if not argv or not _PYTHON.fullmatch(Path(argv[0]).name):
        return None
    index = 1
    options: list[str] = []
    while index < len(argv) and argv[index].startswith("-") and argv[index] != "-":
        option = argv[index]
        if option == "-m" and index + 1 < len(argv):
            name, rest = argv[index + 1], tuple(argv[index + 2 :])
            return Target(argv[0], tuple(options), "module", name, rest)
        if option == "-c" or option.startswith("--"):
            return None
        taken = 2 if option in _VALUED else 1
        options += argv[index : index + taken]
        index += taken
    if index >= len(argv) or argv[index] == "-":
        return None
    return Target(argv[0], tuple(options), "path", argv[index], tuple(argv[index + 1 :]))


def launch(argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float | None) -> Ran:
    """Run argv to its end or its timeout. OSError (not found, not executable) is the caller's."""
    started = time.monotonic()
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    kept = bytearray()
    reader = threading.Thread(target=_drain, args=(process, kept), daemon=True)
    reader.start()
    timed_out = False
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(process.pid)  # what it left running too
        process.wait()
    reader.join(5)
    status = process.returncode
    status = 128 - status if status < 0 else status
    output = bytes(kept).decode("utf-8", "replace")
    return Ran(status, output, time.monotonic() - started, timed_out)


def _drain(process: subprocess.Popen[bytes], kept: bytearray) -> None:
    assert process.stdout is not None
    while chunk := process.stdout.read(65536):
        kept += chunk
        if len(kept) > MAX_OUTPUT:
            del kept[: len(kept) - MAX_OUTPUT]


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
