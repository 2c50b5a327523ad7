"""Channel: the one select loop both sides read pipes with, and a forked run that never returns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.verify.channel import (
    RAISED,
    ended,
    fork,
    learn_module_files,
    read_until,
    run_process,
)


class Pipe:
    def __init__(self) -> None:
        self.read, self.write = os.pipe()
        self._open = {self.read, self.write}

    def close_write(self) -> None:
        os.close(self.write)
        self._open.discard(self.write)

    def close(self) -> None:
        for fd in self._open:
            os.close(fd)


@pytest.fixture
def pipe() -> Iterator[Pipe]:
    opened = Pipe()
    yield opened
    opened.close()


def test_a_line_is_read_and_what_follows_it_is_kept(pipe: Pipe) -> None:
    read, write = pipe.read, pipe.write
    os.write(write, b"one\ntw")

    assert read_until(read, b"", 1.0, b"\n") == (b"one\ntw", True)


def test_a_line_already_read_needs_no_wait(pipe: Pipe) -> None:
    read = pipe.read

    assert read_until(read, b"one\n", 0.0, b"\n") == (b"one\n", True)


def test_a_line_cut_short_by_the_close_is_incomplete(pipe: Pipe) -> None:
    read, write = pipe.read, pipe.write
    os.write(write, b"partial")
    pipe.close_write()

    assert read_until(read, b"before ", 1.0, b"\n") == (b"before partial", False)


def test_without_an_end_everything_is_read_until_the_close(pipe: Pipe) -> None:
    read, write = pipe.read, pipe.write

    def writes() -> None:
        os.write(write, b"x" * 100_000)  # more than a pipe holds, and than one read takes
        pipe.close_write()

    writer = threading.Thread(target=writes)
    writer.start()
    data, complete = read_until(read, b"", 10.0)
    writer.join()

    assert (len(data), complete) == (100_000, True)


@pytest.mark.parametrize("end", [b"\n", None], ids=["a line", "to the close"])
def test_silence_ends_at_the_timeout(pipe: Pipe, end: bytes | None) -> None:
    read, write = pipe.read, pipe.write
    os.write(write, b"some")
    started = time.monotonic()

    assert read_until(read, b"", 0.1, end) == (b"some", False)
    assert time.monotonic() - started < 5.0


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")


def _exit_code(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@needs_fork
def test_a_forked_run_exits_0_when_it_returns_and_70_when_it_raises() -> None:
    def fails() -> None:
        raise RuntimeError("the run's own problem")

    assert _exit_code(fork(lambda: None)) == 0
    assert _exit_code(fork(fails)) == 70


@needs_fork
def test_a_forked_run_leads_its_own_session(pipe: Pipe) -> None:
    read, write = pipe.read, pipe.write

    pid = fork(lambda: os.write(write, str(os.getsid(0)).encode()))
    pipe.close_write()
    data, _ = read_until(read, b"", 10.0)

    assert _exit_code(pid) == 0
    assert int(data) == pid  # so kill_group ends it with everything it starts


def test_a_server_learns_every_loaded_modules_file_before_it_forks() -> None:
    # Else pytest's report of each failing run asks inspect.getmodule, which then resolves the
    # real path of every module again in the forked child (~20 ms a failing verification).
    import inspect

    inspect.getmodule(fork.__code__)  # what was asked before: this module's file is known
    inspect._filesbymodname.clear()  # type: ignore[attr-defined]
    learn_module_files()

    loaded = {
        name
        for name, module in list(sys.modules.items())
        if inspect.ismodule(module) and getattr(module, "__file__", None)
    }
    assert loaded <= set(inspect._filesbymodname)  # type: ignore[attr-defined]


@needs_fork
def test_a_forked_run_that_raised_says_what_as_its_last_line_on_stderr(tmp_path: Path) -> None:
    # Sandboxed, the run may open no file, not even its output: it says so by descriptor.
    output = tmp_path / "output.txt"

    def fails() -> None:
        os.dup2(os.open(output, os.O_WRONLY | os.O_CREAT, 0o600), 2)
        raise AttributeError("module '_pytest.timing' has no attribute 'Instant'")

    code = _exit_code(fork(fails))

    assert code == RAISED
    assert (ended(code, output.read_text()) or "").startswith(
        "caretaker's test process failed: AttributeError: module '_pytest.timing' has no "
        "attribute 'Instant' at test_channel.py:"
    )


@needs_fork
def test_each_exception_of_the_chain_is_said_the_first_one_first(tmp_path: Path) -> None:
    output = tmp_path / "output.txt"

    def fails() -> None:
        os.dup2(os.open(output, os.O_WRONLY | os.O_CREAT, 0o600), 2)
        try:
            raise AttributeError("no Instant")
        except AttributeError:
            raise PermissionError("cannot append the traceback")  # noqa: B904 - as warm.py does

    said = ended(_exit_code(fork(fails)), output.read_text()) or ""

    first, then = said.split(", then ")
    assert first.startswith("caretaker's test process failed: AttributeError: no Instant at ")
    assert then.startswith("PermissionError: cannot append the traceback at ")


@pytest.mark.parametrize(
    ("code", "output", "said"),
    [
        (0, "anything", None),
        (-9, "", "the test process was killed by signal 9"),
        (
            RAISED,
            "1 passed\nKeyError: 'x' at worker.py:3\n",
            "caretaker's test process failed: KeyError: 'x' at worker.py:3",
        ),
        (
            1,
            "Traceback (most recent call last):\n  File \"w.py\", line 1\nKeyError: 'x'\n",
            "caretaker's test process failed: KeyError: 'x'",
        ),
        (
            1,
            "1 failed\n",
            "the test process exited with code 1 (did the code exit the interpreter?)",
        ),
        (
            3,
            "Traceback (most recent call last):\nValueError: v\n",
            "the test process exited with code 3 (did the code exit the interpreter?)",
        ),
        (RAISED, "", "the test process exited with code 70 (did the code exit the interpreter?)"),
    ],
    ids=[
        "clean",
        "signal",
        "forked run raised",
        "fresh run raised",
        "os._exit(1)",
        "os._exit(3)",
        "nothing said",
    ],
)
def test_how_a_run_ended_is_said(code: int, output: str, said: str | None) -> None:
    assert ended(code, output) == said


def test_a_fresh_test_process_that_raised_is_caretakers_failure(tmp_path: Path) -> None:
    # The fresh-process path: python -m pytest_caretaker.verify.worker SPEC; here its spec lacks
    # what run_spec reads, as a bug of caretaker's would have it.
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"root": str(tmp_path), "args": [], "nodeids": [], "patches": {}}))

    def spawn(command: list[str], **options: Any) -> subprocess.Popen[bytes]:
        return subprocess.Popen(command, start_new_session=True, **options)

    command = [sys.executable, "-m", "pytest_caretaker.verify.worker", str(spec)]
    _, problem = run_process(command, 60.0, spawn, tmp_path / "output.txt")

    assert problem == "caretaker's test process failed: KeyError: 'test_limit'"
