"""Verify: run tests in a separate process with candidate sources applied in memory, and judge.

The worker (worker.py) gets the candidate bytes through a temporary directory outside the project;
the project's files are only read. A run that hangs is killed with its whole process group after
the timeout; a run that exits without reporting (``os._exit``, a killed interpreter) is a crash.
Neither can pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_caretaker.children import WORKER_ENV, worker_token
from pytest_caretaker.results import Executed
from pytest_caretaker.verify.channel import Server, run_process
from pytest_caretaker.verify.environment import candidate_env
from pytest_caretaker.verify.policy import for_project
from pytest_caretaker.verify.protocol import (
    RESULT,
    RUN_SPACE,
    RunReport,
    RunSpec,
    SandboxPolicy,
    Session,
)
from pytest_caretaker.verify.reading import executed, unreadable

#: Fork-based warm runs where fork is safe and cheap; a fresh process per run elsewhere.
WARM_DEFAULT = sys.platform.startswith("linux")
#: The most warm servers one runner keeps (each is a preloaded interpreter).
MAX_SERVERS = 4
_DROPPED_ENV = ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID")


@dataclass(frozen=True)
class Confinement:
    """Run every child in the sandbox (sandbox.py); network keeps the network reachable."""

    network: bool = False


@dataclass(frozen=True)
class Outcome:
    outcome: str  # passed, failed, error, skipped
    detail: str = ""
    seconds: float = field(default=0.0, compare=False)  # the call's, of a test that passed


@dataclass(frozen=True)
class RunResult:
    outcomes: Mapping[str, Outcome]
    executed: Mapping[str, Executed]
    collect_errors: tuple[str, ...] = ()
    problem: str | None = None  # set when the run itself failed: timeout, crash
    output: str = ""
    seconds: float = 0.0
    #: The tests that reached a time limit and were run again with more time (patience.py).
    again: frozenset[str] = frozenset()


class Runner:
    """Starts workers that run tests the way this session ran them.

    On Linux a warm server (warm.py) imports pytest and its plugins once and forks a
    child per run, so a run costs about what its tests cost; elsewhere, or if the server fails,
    each run is a fresh ``python -m pytest_caretaker.verify.worker`` process. Call close() when
    done.
    """

    def __init__(
        self,
        root: Path,
        invocation_dir: Path,
        args: Sequence[str],
        timeout: float,
        warm: bool = WARM_DEFAULT,
        confinement: Confinement | None = None,
        test_limit: float | None = None,
    ) -> None:
        self.root = root
        #: Seconds one test may take when the project sets no pytest-timeout (timer.derived,
        #: from the passing tests' durations); None: no limit per test, only the run's.
        self.test_limit = test_limit
        #: Every run's folder is made in here: the only place a sandboxed child may write.
        self.scratch = Path(tempfile.mkdtemp(prefix="caretaker-"))
        self.policy: SandboxPolicy | None = None
        if confinement is not None:
            self.policy = for_project(root, self.scratch, confinement.network)
        self.invocation_dir = invocation_dir
        self.args = tuple(args)
        self.timeout = timeout
        self.warm = warm
        #: Warm servers: each runs one spec at a time, so concurrent repairs verify in parallel
        #: on up to `parallel` of them (the CPU count), started as they are first needed.
        self.parallel = max(1, min(os.cpu_count() or 1, MAX_SERVERS))
        #: Test files (root-relative) a warm server collects once, so a run of their tests
        #: costs only the tests (collected.py). Set before prestart().
        self.collect: tuple[str, ...] = ()
        self._idle: list[Server] = []
        self._started = 0
        self._busy = 0
        self._closed = False
        self._pool = threading.Condition()

    def close(self) -> None:
        with self._pool:
            idle, self._idle = self._idle, []
            self._closed = True
            self._pool.notify_all()
        for server in idle:
            server.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def run(
        self,
        nodeids: Sequence[str],
        patches: Mapping[str, bytes] | None = None,
        trace: bool = False,
        timeout: float | None = None,
        test_limit: float | None = None,
        scale: float = 1.0,
    ) -> RunResult:
        """Run nodeids with patches (root-relative path -> new bytes) served in memory.

        timeout, when given, shortens this run's limit (never lengthens it); test_limit, when
        given, is each test's own (else the runner's; the project's pytest-timeout wins);
        scale makes every limit that many times as long, up to the runner's timeout (the
        user's ceiling).
        """
        workdir = Path(tempfile.mkdtemp(prefix="run-", dir=self.scratch))
        limit = self.timeout if timeout is None else min(timeout * scale, self.timeout)
        per_test = self.test_limit if test_limit is None else test_limit
        try:
            return self._run(workdir, nodeids, patches or {}, trace, (per_test, limit, scale))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _run(
        self,
        workdir: Path,
        nodeids: Sequence[str],
        patches: Mapping[str, bytes],
        trace: bool,
        limits: tuple[float | None, float, float],
    ) -> RunResult:
        test_limit, timeout, scale = limits
        patch_files: dict[str, str] = {}
        for index, (rel, data) in enumerate(sorted(patches.items())):
            target = workdir / f"patch{index}.py"
            target.write_bytes(data)
            patch_files[str(self.root / rel)] = str(target)
        result_file = workdir / RESULT
        space = workdir / RUN_SPACE  # the run writes here alone; the rest of workdir is read-only
        space.mkdir()
        spec: RunSpec = {
            "root": str(self.root),
            "args": [*self.args, "--basetemp", str(space / "basetemp")],
            "nodeids": [self.absolute(nodeid) for nodeid in nodeids],
            "patches": patch_files,
            "trace": trace,
            "sandbox": self.policy,
            "test_limit": test_limit,
            "run_limit": timeout,
            "limit_scale": scale,
        }
        spec_file = workdir / "spec.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        started = time.monotonic()
        output, problem = self._execute(spec_file, timeout)
        seconds = time.monotonic() - started
        if problem is None:
            problem = unreadable(result_file)
        if problem is not None:
            return RunResult({}, {}, problem=problem, output=output, seconds=seconds)
        try:
            report: RunReport = json.loads(result_file.read_text(encoding="utf-8"))
        except ValueError:
            problem = "the test process's result could not be read"
            return RunResult({}, {}, problem=problem, output=output, seconds=seconds)
        return RunResult(
            outcomes={
                k: Outcome(v["outcome"], v["detail"], v.get("seconds", 0.0))
                for k, v in report["outcomes"].items()
            },
            executed=executed(report["trace"]),
            collect_errors=tuple(report["collect_errors"]),
            output=output,
            seconds=seconds,
        )

    def prestart(self) -> None:
        """Start a warm server now, so that it preloads while the test run goes on."""
        with self._pool:
            if not self.warm or self._started or self._closed:
                return
            self._started += 1
        self._new_server()

    def _new_server(self) -> None:
        command = [sys.executable, "-m", "pytest_caretaker.verify.warm", str(self.root)]
        command.append(json.dumps(self.policy))
        args = [*self.args, "--basetemp", str(self.scratch / "server-basetemp")]
        paths = [str(self.root / rel) for rel in self.collect]  # none: it collects nothing
        command.append(json.dumps(Session(args=args, paths=paths)))
        server = Server.start(command, self.spawn)
        if server is not None:
            server.contained = self.policy is not None
        with self._pool:
            if server is None:
                self._started -= 1
                self.warm = False  # cannot start one: fresh processes from now on
            elif self._closed:
                self._started -= 1
            else:
                self._idle.append(server)
            self._pool.notify_all()
        if server is not None and self._closed:
            server.close()

    def _acquire(self) -> Server | None:
        """A warm server: an idle one that is ready, else one that gets ready or is released
        first (a run of collected tests takes milliseconds, a new server seconds: one more is
        started only when every server is busy and fewer than `parallel` run); None: not warm."""
        with self._pool:
            while True:
                if not self.warm or self._closed:
                    return None
                ready = [server for server in self._idle if server.ready()]
                if ready or (self._idle and self._busy == 0):
                    server = (ready or self._idle)[0]
                    self._idle.remove(server)
                    self._busy += 1
                    return server
                if not self._idle and self._started < self.parallel:
                    self._started += 1
                    break
                self._pool.wait(0.01 if self._idle else None)
        self._new_server()
        return self._acquire()

    def _release(self, server: Server, alive: bool) -> None:
        with self._pool:
            self._busy -= 1
            if alive and not self._closed:
                self._idle.append(server)
            else:
                self._started -= 1
            self._pool.notify_all()
        if not alive or self._closed:
            server.close()

    def _execute(self, spec_file: Path, timeout: float) -> tuple[str, str | None]:
        server = self._acquire()
        if server is not None:
            done = server.run(spec_file, timeout)
            self._release(server, alive=done is not None and not server.dead)
            if done is not None:
                return done
            # It died: carry on with fresh processes (another server may die the same way).
            with self._pool:
                self.warm = False
        output = spec_file.with_name("output.txt")
        return run_process(self.command(str(spec_file)), timeout, self.spawn, output)

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "pytest_caretaker.verify.worker", *args]

    def spawn(self, command: list[str], **options: Any) -> subprocess.Popen[bytes]:
        env = {key: value for key, value in os.environ.items() if key not in _DROPPED_ENV}
        if self.policy is not None:  # candidate code: no secret, no socket of the user's
            env = candidate_env(env)
        env[WORKER_ENV] = worker_token()
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return subprocess.Popen(
            command, cwd=self.invocation_dir, env=env, start_new_session=True, **options
        )

    def absolute(self, nodeid: str) -> str:
        path, sep, rest = nodeid.partition("::")
        return str(self.root / path) + sep + rest
