"""Channels to the processes that run tests: a line protocol with a server on its pipes, the warm
worker server (warm.py), one fresh run, and the means to contain a run (forking it into
its own session, capping its memory, killing it with its process group).

Both sides use this module: the parent talks to its servers through it, and the servers, which
fork a run per request, contain and read their own children with the same means. So it depends on
the standard library alone.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

#: Seconds a server may take to start or to acknowledge a run.
SERVER_START_TIMEOUT = 30.0
#: Seconds a warm server may take to be ready (to import pytest's plugins, collect the tests).
SERVER_READY_TIMEOUT = 120.0
#: Bytes of address space a verification run may add to what it starts with.
MEMORY_HEADROOM = 4 << 30


_C = TypeVar("_C", bound="Channel")


class Channel:
    """A line protocol with a server process on its stdin and stdout."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.buffer = b""

    @classmethod
    def start(cls: type[_C], command: list[str], spawn: Any) -> _C | None:
        try:
            process = spawn(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError:
            return None
        return cls(process)

    def send(self, line: str) -> bool:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(f"{line}\n".encode())
            self.process.stdin.flush()
        except (OSError, ValueError):  # the server is gone, or the channel was closed
            return False
        return True

    def readline(self, timeout: float) -> str | None:
        """The next line, or None when the server closed or said nothing within the timeout."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        self.buffer, complete = read_until(fd, self.buffer, timeout, b"\n")
        if not complete:
            return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode().strip()

    def close(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill_group(self.process.pid)
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


class Server(Channel):
    """The warm worker server (warm.py): one run at a time.

    A contained server (sandboxed: pid 1 of its own namespaces) reports pids that mean nothing
    here; a run that outlives its time is ended by killing the whole server, which is then dead.
    """

    contained = False
    dead = False
    _ready = False

    def ready(self) -> bool:
        """Whether the server said it is ready (its first line), without waiting for it."""
        if not self._ready and self.process.stdout is not None:
            fd = self.process.stdout.fileno()
            while b"\n" not in self.buffer:
                if not select.select([fd], [], [], 0)[0]:
                    return False
                chunk = os.read(fd, 65536)
                if not chunk:
                    return False
                self.buffer += chunk
            self._ready = self.readline(0) == "ready"
        return self._ready

    def run(self, spec_file: Path, timeout: float) -> tuple[str, str | None] | None:
        """Output and problem of one run, or None when the server itself failed."""
        if not self._ready and self.readline(SERVER_READY_TIMEOUT) != "ready":
            return None
        self._ready = True
        if not self.send(str(spec_file)):
            return None
        pid_line = self.readline(SERVER_START_TIMEOUT)
        if pid_line is None or not pid_line.isdigit():
            return None
        problem = None
        done = self.readline(timeout)
        if done is None:
            problem = f"the tests did not finish within {timeout:g} s (does the code loop forever?)"
            if self.contained:
                self.dead = True
                kill_group(self.process.pid)
                done = ""
            else:
                kill_group(int(pid_line))
                done = self.readline(SERVER_START_TIMEOUT)
                if done is None:
                    return None
        output = read_tail(spec_file.with_name("output.txt"))
        if problem is None and done.startswith("done "):
            problem = ended(os.waitstatus_to_exitcode(int(done.split()[1])), output)
        return output, problem


#: The status of a forked run whose own code raised (fork's child).
RAISED = 70


def ended(code: int, output: str) -> str | None:
    """Why a run that exited with code did not report (None: it ended cleanly, status 0). Only
    the worker's own clean end is a verdict: whatever a run left in its result file before any
    other end is never read. A run that raised is caretaker's failure, not the code's: pytest
    turns whatever a test raises, SystemExit too, into its outcome; what escapes is caretaker's
    (a forked run exits RAISED, a fresh one with Python's 1 after a traceback)."""
    if code == 0:
        return None
    if code < 0:
        return f"the test process was killed by signal {-code}"
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    raised = code == RAISED or (code == 1 and TRACEBACK in lines[-200:] and ": " in last)
    if raised and last:
        return f"caretaker's test process failed: {last[:300]}"
    return f"the test process exited with code {code} (did the code exit the interpreter?)"


#: The line Python prints first when an exception ends a program.
TRACEBACK = "Traceback (most recent call last):"


def failure_line(error: BaseException) -> str:
    """What a run that raised error says as its last line: each exception of the chain, the
    first one raised first, with the file and line it was raised at (for a report of the bug)."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        hidden = current.__suppress_context__  # raise ... from None
        current = current.__cause__ or (None if hidden else current.__context__)
    said = []
    for raised in reversed(chain):
        frames = traceback.extract_tb(raised.__traceback__)
        at = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
        said.append(f"{type(raised).__name__}: {raised}{at}")
    return ", then ".join(said)


#: Bytes of a run's output the parent reads: its end, where the failure is.
MAX_OUTPUT = 256 << 10


def read_tail(path: Path, size: int = MAX_OUTPUT) -> str:
    """The last size bytes of a file, as text; "" when there is none."""
    try:
        with path.open("rb") as file:
            file.seek(0, os.SEEK_END)
            file.seek(max(0, file.tell() - size))
            return file.read(size).decode("utf-8", "replace")
    except OSError:
        return ""


def run_process(
    command: list[str], timeout: float, spawn: Any, output: Path
) -> tuple[str, str | None]:
    """Run command with its output going to the output file; the end of it, and the problem."""
    with output.open("wb") as sink:
        process = spawn(command, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process.pid)
        process.wait()
        text = read_tail(output)
        return text, f"the tests did not finish within {timeout:g} s (does the code loop forever?)"
    text = read_tail(output)
    return text, ended(process.returncode, text)


def kill_group(pid: int) -> None:
    """Kill a run and everything it started (it leads its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(pid, signal.SIGKILL)
        else:  # Windows: no process groups to kill; the run itself at least
            os.kill(pid, signal.SIGTERM)


def read_until(
    fd: int, data: bytes, timeout: float, end: bytes | None = None, limit: int | None = None
) -> tuple[bytes, bool]:
    """data with what fd adds to it until end is in it (no end: until fd closes), and whether
    that happened within the timeout. Nothing read is lost: a caller may keep it for the next call.
    With a limit, reading stops (unfinished) once data holds more than limit bytes.
    """
    deadline = time.monotonic() + timeout
    while end is None or end not in data:
        if limit is not None and len(data) > limit:
            return data, False
        left = deadline - time.monotonic()
        if left <= 0:
            return data, False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return data, False
        chunk = os.read(fd, 65536)
        if not chunk:
            return data, end is None  # closed: the whole of it, or a line that never ends
        data += chunk
    return data, True


def fork(child: Callable[[], object]) -> int:
    """Run child in a forked process and return its pid.

    The process leads its own session, so kill_group ends it with everything it starts, and it
    exits as soon as child ends (status 0, or RAISED if child raised): it never returns into the
    caller's loop, where it would be a second server reading the same requests.
    """
    pid = os.fork()
    if pid == 0:
        status = RAISED
        try:
            os.setsid()
            child()
            status = 0
        except BaseException as error:
            _say_last(failure_line(error))
        finally:
            os._exit(status)
    return pid


def _say_last(line: str) -> None:
    """line as the last of stderr (a run's output), by descriptor: the run may no longer be
    allowed to open a file, not even the one its output goes to; at the end of that file, which
    others may have written to since this descriptor last did."""
    with contextlib.suppress(OSError):
        os.lseek(2, 0, os.SEEK_END)
    with contextlib.suppress(BaseException):
        os.write(2, f"\n{line}\n".encode("utf-8", "replace"))


def learn_module_files() -> None:
    """Have inspect learn the file of every module loaded so far, once, before forking: pytest's
    report of a failure asks inspect.getmodule, which otherwise resolves the real path of every
    loaded module (hundreds of lstat calls, ~20 ms) again in each forked run that fails."""
    import inspect

    # Code of no file: getmodule finds it in no cache and walks sys.modules, learning each one.
    inspect.getmodule(compile("", "<caretaker: learn the modules' files>", "exec"))


def cap_memory(headroom: int = MEMORY_HEADROOM) -> None:
    """Let this process grow by headroom bytes at most: a candidate that appends to the list it
    loops over fills memory faster than any time limit stops it; it gets a MemoryError instead."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE") + headroom
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            size = min(size, hard)
        if soft == resource.RLIM_INFINITY or soft > size:
            resource.setrlimit(resource.RLIMIT_AS, (size, hard))
    except (ImportError, OSError, ValueError):
        pass  # no /proc or no limits here: the time limit alone contains the child
