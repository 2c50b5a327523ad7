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
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_caretaker.settings import WORKER_ENV

_DROPPED_ENV = ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID")


@dataclass(frozen=True)
class Outcome:
    outcome: str  # passed, failed, error, skipped
    detail: str = ""


@dataclass(frozen=True)
class Executed:
    """What one test ran of the project: functions as (path, first line) in call order, and lines."""

    functions: tuple[tuple[str, int], ...] = ()
    lines: Mapping[str, frozenset[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class RunResult:
    outcomes: Mapping[str, Outcome]
    executed: Mapping[str, Executed]
    collect_errors: tuple[str, ...] = ()
    problem: str | None = None  # set when the run itself failed: timeout, crash
    output: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str = ""  # one line, for the summary
    detail: str = ""  # the evidence, for the model's next attempt
    result: RunResult | None = None


@dataclass(frozen=True)
class Runner:
    """Knows how to start a worker that runs tests the way this session ran them."""

    root: Path
    invocation_dir: Path
    args: tuple[str, ...]
    timeout: float

    @classmethod
    def for_config(cls, config: pytest.Config, timeout: float) -> Runner:
        args = ["-q", "--no-header", "--tb=short", "-p", "no:cacheprovider", "-o", "addopts="]
        args += ["--rootdir", str(config.rootpath)]
        if config.inipath is not None:
            args += ["-c", str(config.inipath)]
        args += ["--import-mode", str(config.getoption("importmode"))]
        for plugin in config.getoption("plugins") or ():
            if "caretaker" not in plugin:
                args += ["-p", plugin]
        return cls(
            config.rootpath.resolve(), config.invocation_params.dir, tuple(args), timeout
        )

    def run(
        self,
        nodeids: Sequence[str],
        patches: Mapping[str, bytes] | None = None,
        trace: bool = False,
    ) -> RunResult:
        """Run nodeids with patches (root-relative path -> new bytes) served in memory."""
        workdir = Path(tempfile.mkdtemp(prefix="caretaker-"))
        try:
            return self._run(workdir, nodeids, patches or {}, trace)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _run(
        self, workdir: Path, nodeids: Sequence[str], patches: Mapping[str, bytes], trace: bool
    ) -> RunResult:
        patch_files: dict[str, str] = {}
        for index, (rel, data) in enumerate(sorted(patches.items())):
            target = workdir / f"patch{index}.py"
            target.write_bytes(data)
            patch_files[str(self.root / rel)] = str(target)
        result_file = workdir / "result.json"
        spec = {
            "root": str(self.root),
            "args": [*self.args, "--basetemp", str(workdir / "basetemp")],
            "nodeids": [self._absolute(nodeid) for nodeid in nodeids],
            "patches": patch_files,
            "trace": trace,
            "result": str(result_file),
        }
        spec_file = workdir / "spec.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        env = {key: value for key, value in os.environ.items() if key not in _DROPPED_ENV}
        env[WORKER_ENV] = "1"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        started = time.monotonic()
        output, problem = _run_process(
            [sys.executable, "-m", "pytest_caretaker.worker", str(spec_file)],
            cwd=self.invocation_dir,
            env=env,
            timeout=self.timeout,
        )
        seconds = time.monotonic() - started
        if problem is None and not result_file.exists():
            problem = "the test process exited before reporting (did the code exit the interpreter?)"
        if problem is not None:
            return RunResult({}, {}, problem=problem, output=output, seconds=seconds)
        data = json.loads(result_file.read_text(encoding="utf-8"))
        return RunResult(
            outcomes={k: Outcome(v["outcome"], v["detail"]) for k, v in data["outcomes"].items()},
            executed=_executed(data["trace"]),
            collect_errors=tuple(data["collect_errors"]),
            output=output,
            seconds=seconds,
        )

    def _absolute(self, nodeid: str) -> str:
        path, sep, rest = nodeid.partition("::")
        return str(self.root / path) + sep + rest


def _run_process(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> tuple[str, str | None]:
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        stdout, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        stdout, _ = process.communicate()
        text = stdout.decode("utf-8", "replace")
        return text, f"the tests did not finish within {timeout:g} s (does the code loop forever?)"
    text = stdout.decode("utf-8", "replace")
    if process.returncode < 0:
        return text, f"the test process was killed by signal {-process.returncode}"
    return text, None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (AttributeError, ProcessLookupError, PermissionError):
        process.kill()


def _executed(trace: dict[str, object] | None) -> dict[str, Executed]:
    if not trace:
        return {}
    functions: dict[str, list[list[object]]] = trace["functions"]  # type: ignore[assignment]
    lines: dict[str, dict[str, list[int]]] = trace["lines"]  # type: ignore[assignment]
    return {
        nodeid: Executed(
            functions=tuple((str(path), int(first)) for path, first in calls),  # type: ignore[call-overload]
            lines={rel: frozenset(hits) for rel, hits in lines.get(nodeid, {}).items()},
        )
        for nodeid, calls in functions.items()
    }


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def judge(result: RunResult, failing: Sequence[str], regression: Sequence[str]) -> Verdict:
    """Accept only if every failing test passes and every regression test still passes."""
    if result.problem is not None:
        return Verdict(False, result.problem, result.output[-2_000:], result)
    if result.collect_errors:
        detail = result.collect_errors[0]
        return Verdict(False, f"collecting the tests failed: {_first_line(detail)}", detail, result)
    for nodeid in failing:
        outcome = result.outcomes.get(nodeid)
        if outcome is None:
            return Verdict(False, f"{nodeid} did not run", result.output[-2_000:], result)
        if outcome.outcome != "passed":
            return Verdict(False, f"{nodeid} still fails", outcome.detail, result)
    for nodeid in regression:
        outcome = result.outcomes.get(nodeid)
        if outcome is None:
            return Verdict(False, f"fix broke {nodeid} (it did not run)", "", result)
        if outcome.outcome != "passed":
            return Verdict(False, f"fix broke {nodeid}", outcome.detail, result)
    return Verdict(True, result=result)
