"""The Check of a recorded call: call the function again with its pickled arguments and a
candidate's files swapped in memory (child.py), in the sandbox when there is one; it passes when
the call returns without raising and, when the project has pytest tests that run the function,
those tests (which passed before) still pass."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_caretaker.children import WORKER_ENV, worker_token
from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Executed, Verdict
from pytest_caretaker.runtime.child import CASE
from pytest_caretaker.runtime.records import Crash
from pytest_caretaker.verify.environment import candidate_env
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.protocol import SandboxPolicy
from pytest_caretaker.verify.reading import executed_in
from pytest_caretaker.verify.runner import Runner

CHILD = "pytest_caretaker.runtime.child"
MAX_DETAIL = 3_000


@dataclass(frozen=True)
class Replayed:
    ok: bool  # the call returned (the child said so with the nonce)
    status: int
    output: str
    seconds: float
    timed_out: bool = False


@dataclass
class Replay:
    """Calls a crash's function again in a child, with patches (root-relative path -> bytes)."""

    crash: Crash
    root: Path
    timeout: float
    scratch: Path
    policy: SandboxPolicy | None = None

    def run(
        self, patches: Mapping[str, bytes], timeout: float | None = None, trace: bool = False
    ) -> tuple[Replayed, Executed | None]:
        workdir = Path(tempfile.mkdtemp(prefix="replay-", dir=self.scratch))
        try:
            files: dict[str, str] = {}
            for index, (rel, new) in enumerate(sorted(patches.items())):
                (workdir / f"patch{index}.py").write_bytes(new)
                files[str(self.root / rel)] = str(workdir / f"patch{index}.py")
            recorded, where, call = self.crash.data, self.crash.where, self.crash.call
            spec = {
                "root": str(self.root),
                "sys_path": recorded.get("sys_path", [str(self.root)]),
                "module": where.module,
                "qualname": where.qualname,
                "file": where.file,
                "coroutine": where.coroutine,
                "call": str(call),
                "patches": files,
                "trace": trace,
                "trace_file": str(workdir / "trace.json"),
                "sandbox": self.policy,
            }
            (workdir / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
            limit = self.timeout if timeout is None else min(timeout, self.timeout)
            ran = self._launch(workdir / "spec.json", limit)
            return ran, executed_in(workdir / "trace.json", CASE) if trace else None
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _launch(self, spec: Path, timeout: float) -> Replayed:
        interpreter = str(self.crash.data.get("interpreter") or "")
        python = interpreter if os.path.isfile(interpreter) else _python()
        env = dict(os.environ)
        if self.policy is not None:  # the replayed code: no secret, no socket of the user's
            env = candidate_env(env)
        env.update({WORKER_ENV: worker_token(), "CARETAKER_RUNTIME": "off"})
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        cwd = str(self.crash.data.get("cwd") or self.root)
        nonce = secrets.token_hex(16)
        started = time.monotonic()
        process = subprocess.Popen(
            [python, "-m", CHILD, str(spec)],
            cwd=cwd if os.path.isdir(cwd) else self.root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        timed_out = False
        try:
            raw, _ = process.communicate(f"{nonce}\n".encode(), timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process.pid)
            raw, _ = process.communicate()
        finally:
            _kill_group(process.pid)  # what it left running too
        output = raw.decode("utf-8", "replace")
        status = process.returncode
        lines = output.rstrip().splitlines()
        ok = not timed_out and status == 0 and lines[-1:] == [nonce]
        shown = "\n".join(line for line in lines if line != nonce)
        return Replayed(ok, status, shown, time.monotonic() - started, timed_out)


def _python() -> str:
    import sys

    return sys.executable


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def failed(replayed: Replayed, timeout: float) -> str:
    """One line: how the replayed call failed."""
    if replayed.timed_out:
        return f"the call still hangs (stopped after {timeout:g} s)"
    last = next((ln for ln in reversed(replayed.output.splitlines()) if ln.strip()), "")
    said = f": {last.strip()[:200]}" if last else ""
    if replayed.status == 0:
        return f"the call did not return (the process exited without finishing it){said}"
    return f"the call still raises{said}"


@dataclass
class ReplayCheck:
    replay: Replay
    #: The project's pytest tests that run the function and passed before: they must still pass.
    tests: Runner | None = None
    passing: Sequence[str] = field(default_factory=tuple)

    def __call__(
        self, problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict:
        replayed, _ = self.replay.run(changes, timeout)
        if not replayed.ok:
            limit = self.replay.timeout if timeout is None else timeout
            detail = replayed.output[-MAX_DETAIL:]
            return Verdict(False, failed(replayed, limit), detail, seconds=replayed.seconds)
        passed = frozenset({problem.lead.nodeid})
        if self.tests is not None and self.passing:
            run = self.tests.run(self.passing, changes, timeout=timeout)
            verdict = judge(run, [], self.passing)
            if not verdict.ok:
                reason = f"the call returns but the {verdict.reason}"
                return Verdict(False, reason, verdict.detail, seconds=replayed.seconds)
            passed |= verdict.passed
        return Verdict(True, passed=passed, seconds=replayed.seconds)
