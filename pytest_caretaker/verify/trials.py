"""Trials: verify hundreds of one-function candidates per second, for the built-in repairer.

A trial server is a pytest session that collects the tests it may need once and then, instead of
running them, waits for candidates on stdin. For each one it forks: the child swaps the code of
the candidate's function in place (every reference to the function object sees the new code),
runs the tests in order through pytest's own runtest protocol, stops at the first that does not
pass, and reports. The parent kills a child that outlives its time limit together with its process
group; a child that exits without reporting (``os._exit``, a signal) reports nothing, and nothing
is not a pass. The server's state never changes, so every trial starts from the same clean state.

A trial is a fast filter, not the proof: the repairer confirms a candidate that passes here with
the ordinary verifier (a fresh import of the patched file), as it does a model's fix.

Protocol (JSON lines): the server says ``{"collected": [...], "errors": [...]}`` once, then answers
each request ``{"tests", "path", "qualname", "line", "source", "limit"}`` with
``{"outcomes": {...}, "problem": str | null, "unsupported": bool}``.
"""

from __future__ import annotations

import gc
import json
import os
import select
import shutil
import sys
import tempfile
import time
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.verify.channel import SERVER_START_TIMEOUT, Channel, kill_group
from pytest_caretaker.verify.runner import Runner
from pytest_caretaker.verify.worker import WorkerPlugin, cap_memory

#: Trials need fork (copy-on-write children of one collected session).
AVAILABLE = hasattr(os, "fork") and sys.platform.startswith("linux")


@dataclass(frozen=True)
class Trial:
    """The outcome of one trial: every requested test passed, or why not."""

    passed: bool
    reason: str = ""
    unsupported: bool = False  # the candidate cannot be swapped in place: verify it otherwise
    seconds: float = 0.0


@dataclass
class Trials:
    """The parent's handle on a trial server (start it with ``Trials.start``; close it)."""

    channel: Channel
    workdir: Path
    collected: frozenset[str] = frozenset()

    @classmethod
    def start(cls, runner: Runner, nodeids: Sequence[str]) -> Trials | None:
        """Start a server that collects nodeids; None where trials are not available."""
        if not AVAILABLE:
            return None
        workdir = Path(tempfile.mkdtemp(prefix="caretaker-trials-"))
        spec = {
            "root": str(runner.root),
            # A trial needs pass or fail, not a rendered traceback (a third of a failure's cost).
            "args": [*runner.args, "--tb=no", "--basetemp", str(workdir / "basetemp")],
            "nodeids": [runner.absolute(nodeid) for nodeid in nodeids],
        }
        spec_file = workdir / "spec.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        channel = Channel.start(runner.trial_command(spec_file), runner.spawn)
        if channel is None:
            shutil.rmtree(workdir, ignore_errors=True)
            return None
        return cls(channel, workdir)

    def ready(self) -> bool:
        """Wait for the server's collection; False if it failed (then close it)."""
        if self.collected:
            return True
        line = self.channel.readline(SERVER_START_TIMEOUT)
        try:
            hello = json.loads(line) if line else None
        except ValueError:
            hello = None
        if not isinstance(hello, dict) or not hello.get("collected"):
            self.close()
            return False
        self.collected = frozenset(hello["collected"])
        return True

    def run(
        self,
        tests: Sequence[str],
        limit: float,
        path: str | None = None,
        qualname: str = "",
        line: int = 0,
        source: str = "",
    ) -> Trial | None:
        """Run tests (in this order) with one function's code replaced; None if the server died.

        path is absolute; source is the whole new text of that file; qualname and line (its first
        line, decorators included) name the function whose code the source replaces.
        """
        request = {
            "tests": list(tests),
            "path": path,
            "qualname": qualname,
            "line": line,
            "source": source,
            "limit": limit,
        }
        started = time.monotonic()
        if not self.channel.send(json.dumps(request)):
            return None
        answer = self.channel.readline(limit + SERVER_START_TIMEOUT)
        seconds = time.monotonic() - started
        if answer is None:
            return None
        result = json.loads(answer)
        if result.get("unsupported"):
            return Trial(False, "the function cannot be swapped in place", True, seconds)
        if result.get("problem"):
            return Trial(False, str(result["problem"]), seconds=seconds)
        outcomes: dict[str, dict[str, str]] = result["outcomes"]
        for nodeid in tests:
            outcome = outcomes.get(nodeid, {}).get("outcome", "not run")
            if outcome != "passed":
                return Trial(False, f"{nodeid} {outcome}", seconds=seconds)
        return Trial(True, seconds=seconds)

    def close(self) -> None:
        # Nothing of the server's is worth a graceful end (pytest's wind-down costs most of a
        # second); its trials are over, each waited for.
        kill_group(self.channel.process.pid)
        self.channel.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


# -- the server side -------------------------------------------------------------------------------


class TrialPlugin(WorkerPlugin):
    def __init__(self, root: Path, commands: IO[str], replies: IO[str]) -> None:
        super().__init__(root, {}, trace=False)
        self.root = root
        self.commands = commands
        self.replies = replies
        self._functions: dict[tuple[str, str, int], list[types.FunctionType]] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        items = {item.nodeid: item for item in session.items}
        # Children share the server's memory copy-on-write; a garbage collection in a child
        # would touch (and so copy) every object of the session. Frozen objects are left alone.
        self._index_functions()
        gc.freeze()
        self._reply({"collected": sorted(items), "errors": self.collect_errors})
        for line in self.commands:
            if line.strip():
                self._reply(self._trial(json.loads(line), items))
        return True

    def _reply(self, message: Mapping[str, Any]) -> None:
        self.replies.write(json.dumps(message) + "\n")
        self.replies.flush()

    def _trial(self, request: dict[str, Any], items: Mapping[str, pytest.Item]) -> dict[str, Any]:
        live: list[types.FunctionType] = []
        if request["path"]:
            live = self._live(request["path"], request["qualname"], request["line"])
            if not live:
                return {"unsupported": True}
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            status = 70
            try:
                os.close(read)
                os.setsid()
                cap_memory(2 << 30)
                data = json.dumps(self._child(request, items, live)).encode()
                while data:
                    data = data[os.write(write, data) :]
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        data, finished = _read_all(read, request["limit"])
        os.close(read)
        if not finished:
            kill_group(pid)
        _, status = os.waitpid(pid, 0)
        if not finished:
            limit = request["limit"]
            return {"problem": f"the tests did not finish within {limit:.2g} s"}
        if not data:
            code = os.waitstatus_to_exitcode(status)
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            return {"problem": f"the test process {how} before reporting"}
        try:
            answer: dict[str, Any] = json.loads(data)
        except ValueError:  # cut short: the child died while it wrote
            return {"problem": "the test process died while it reported"}
        return answer

    def _child(
        self,
        request: dict[str, Any],
        items: Mapping[str, pytest.Item],
        live: Sequence[types.FunctionType],
    ) -> dict[str, Any]:
        if live:
            try:
                code = _function_code(request, live[0].__code__.co_filename)
            except (SyntaxError, ValueError) as error:
                return {"problem": f"the candidate does not compile: {error}"}
            if code is None or any(f.__code__.co_freevars != code.co_freevars for f in live):
                return {"unsupported": True}
            for function in live:
                function.__code__ = code
        tests = [items[nodeid] for nodeid in request["tests"] if nodeid in items]
        from _pytest.runner import runtestprotocol

        self.outcomes.clear()
        for index, item in enumerate(tests):
            following = tests[index + 1] if index + 1 < len(tests) else None
            # Reports go straight to the outcomes, not through the reporting hooks: nobody
            # reads a trial's terminal output.
            for report in runtestprotocol(item, log=False, nextitem=following):
                self.pytest_runtest_logreport(report)
            if self.outcomes.get(item.nodeid, {}).get("outcome") != "passed":
                break  # one test that does not pass decides the trial
        return {"outcomes": self.outcomes}

    def _live(self, path: str, qualname: str, line: int) -> list[types.FunctionType]:
        """The function objects whose code a candidate replaces."""
        return self._functions.get((os.path.realpath(path), qualname, line), [])

    def _index_functions(self) -> None:
        """Every function object of the project, by (real path, qualname, first line).

        Done once, before gc.freeze(): frozen objects are no longer listed by gc.get_objects().
        """
        real: dict[str, str | None] = {}
        for candidate in gc.get_objects():
            if not isinstance(candidate, types.FunctionType):
                continue
            code = candidate.__code__
            filename = code.co_filename
            if filename not in real:
                resolved = os.path.realpath(filename)
                inside = project_relpath(resolved, self.root) is not None
                real[filename] = resolved if inside else None
            where = real[filename]
            if where is not None:
                qualname = getattr(code, "co_qualname", candidate.__qualname__)
                key = (where, qualname, code.co_firstlineno)
                self._functions.setdefault(key, []).append(candidate)


def _qualname(code: types.CodeType, qualname: str) -> bool:
    own = getattr(code, "co_qualname", None)  # Python 3.11+
    return own is None or own == qualname


def _function_code(request: dict[str, Any], filename: str) -> types.CodeType | None:
    """The new code object of the candidate's function, compiled from the whole new file.

    Only code under test is swapped (never a test module, whose asserts pytest rewrites).
    Raises SyntaxError (or ValueError) when the file does not compile.
    """
    module_code = compile(request["source"], filename, "exec", dont_inherit=True)
    name = request["qualname"].rsplit(".", 1)[-1]
    for code in _codes(module_code):
        same = code.co_name == name and code.co_firstlineno == request["line"]
        if same and _qualname(code, request["qualname"]):
            return code
    return None


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield constant
            yield from _codes(constant)


def _read_all(fd: int, limit: float) -> tuple[bytes, bool]:
    """Everything written to fd until it closes, and whether it closed within the limit."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + limit
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b"".join(chunks), False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return b"".join(chunks), False
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)


def serve(spec_path: str) -> int:
    """Collect the spec's tests, then answer trial requests from stdin until it closes."""
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    sys.dont_write_bytecode = True
    # The protocol keeps the real stdin and stdout (pytest's capturing replaces fds 0-2 during the
    # session); pytest's own output, and the tests', goes nowhere.
    commands = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    plugin = TrialPlugin(Path(spec["root"]).resolve(), commands, replies)
    pytest.main([*spec["args"], *spec["nodeids"]], plugins=[plugin])
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
