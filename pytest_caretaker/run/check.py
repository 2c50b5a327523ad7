"""The Check of a command: run it again with a candidate's files swapped in memory (child.py),
in the sandbox when the session has a policy; it passes when it exits 0 and, when the project
has pytest tests, the tests that passed before still pass.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Executed, Verdict
from pytest_caretaker.run.command import Ran, Target, launch
from pytest_caretaker.run.hook import CASE
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.protocol import SandboxPolicy
from pytest_caretaker.verify.runner import Runner

CHILD = "pytest_caretaker.run.child"
MAX_DETAIL = 3_000


@dataclass
class Commands:
    """Runs a Python command's target in the child, with patches (root-relative path -> bytes)."""

    target: Target
    root: Path
    env: Mapping[str, str]
    timeout: float
    scratch: Path
    policy: SandboxPolicy | None = None

    def run(
        self, patches: Mapping[str, bytes], timeout: float | None = None, trace: bool = False
    ) -> tuple[Ran, Executed | None]:
        workdir = Path(tempfile.mkdtemp(prefix="run-", dir=self.scratch))
        try:
            files: dict[str, str] = {}
            for index, (rel, data) in enumerate(sorted(patches.items())):
                (workdir / f"patch{index}.py").write_bytes(data)
                files[str(self.root / rel)] = str(workdir / f"patch{index}.py")
            trace_file = workdir / "trace.json"
            spec = {
                "root": str(self.root),
                "kind": self.target.kind,
                "name": self.target.name,
                "args": list(self.target.args),
                "patches": files,
                "trace": trace,
                "trace_file": str(trace_file),
                "sandbox": self.policy,
            }
            (workdir / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
            target = self.target
            argv = [target.interpreter, *target.options, "-m", CHILD, str(workdir / "spec.json")]
            limit = self.timeout if timeout is None else min(timeout, self.timeout)
            ran = launch(argv, self.root, self.env, limit)
            return ran, _executed(trace_file) if trace else None
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


def _executed(trace_file: Path) -> Executed | None:
    try:
        trace = json.loads(trace_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    functions = tuple((str(path), int(line)) for path, line in trace["functions"].get(CASE, ()))
    lines = {path: frozenset(hits) for path, hits in trace["lines"].get(CASE, {}).items()}
    return Executed(functions, lines)


def failed(ran: Ran, timeout: float) -> str:
    """One line: how a run of the command failed."""
    if ran.timed_out:
        return f"the command still hangs (stopped after {timeout:g} s)"
    last = next((line for line in reversed(ran.output.splitlines()) if line.strip()), "")
    said = f": {last.strip()[:200]}" if last else ""
    return f"the command still fails (exit status {ran.status}){said}"


@dataclass
class CommandCheck:
    commands: Commands
    #: The project's pytest tests, and the ones that passed before any fix: they must still pass.
    tests: Runner | None = None
    passing: Sequence[str] = field(default_factory=tuple)

    def __call__(
        self, problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict:
        ran, _ = self.commands.run(changes, timeout)
        if ran.status != 0 or ran.timed_out:
            limit = self.commands.timeout if timeout is None else timeout
            detail = ran.output[-MAX_DETAIL:]
            return Verdict(False, failed(ran, limit), detail, seconds=ran.seconds)
        passed = frozenset({problem.lead.nodeid})
        if self.tests is not None and self.passing:
            run = self.tests.run(self.passing, changes, timeout=timeout)
            verdict = judge(run, [], self.passing)
            if not verdict.ok:
                reason = f"the command passes but the {verdict.reason}"
                return Verdict(False, reason, verdict.detail, seconds=ran.seconds)
            passed |= verdict.passed
        return Verdict(True, passed=passed, seconds=ran.seconds)
