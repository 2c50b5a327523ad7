"""Channel: the one select loop both sides read pipes with, and a forked run that never returns."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from pytest_caretaker.verify.channel import fork, learn_module_files, read_until


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
