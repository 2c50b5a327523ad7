"""Channels to the processes that run tests: a line protocol with a server on its pipes, the warm
worker server (worker.py --serve), one fresh run, and killing a run with its process group.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, TypeVar

#: Seconds a server may take to start or to acknowledge a run.
SERVER_START_TIMEOUT = 30.0


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
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
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
    """The warm worker server (worker.py --serve): one run at a time."""

    def run(self, spec_file: Path, timeout: float) -> tuple[str, str | None] | None:
        """Output and problem of one run, or None when the server itself failed."""
        if not self.send(str(spec_file)):
            return None
        pid_line = self.readline(SERVER_START_TIMEOUT)
        if pid_line is None or not pid_line.isdigit():
            return None
        pid = int(pid_line)
        problem = None
        done = self.readline(timeout)
        if done is None:
            kill_group(pid)
            problem = f"the tests did not finish within {timeout:g} s (does the code loop forever?)"
            done = self.readline(SERVER_START_TIMEOUT)
            if done is None:
                return None
        output_file = spec_file.with_name("output.txt")
        output = output_file.read_text("utf-8", "replace") if output_file.exists() else ""
        if problem is None and done.startswith("done "):
            code = os.waitstatus_to_exitcode(int(done.split()[1]))
            if code < 0:
                problem = f"the test process was killed by signal {-code}"
        return output, problem


def run_process(command: list[str], timeout: float, spawn: Any) -> tuple[str, str | None]:
    process = spawn(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        stdout, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process.pid)
        stdout, _ = process.communicate()
        text = stdout.decode("utf-8", "replace")
        return text, f"the tests did not finish within {timeout:g} s (does the code loop forever?)"
    text = stdout.decode("utf-8", "replace")
    if process.returncode < 0:
        return text, f"the test process was killed by signal {-process.returncode}"
    return text, None


def kill_group(pid: int) -> None:
    """Kill a run and everything it started (it leads its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(pid, signal.SIGKILL)
        else:  # Windows: no process groups to kill; the run itself at least
            os.kill(pid, signal.SIGTERM)
