"""The Check of a command: run it again with a candidate's files, swapped in memory for a Python
script or module (child.py), else written into a scratch copy of the project (copies.py), in the
sandbox when the session has a policy. What passes is CommandCheck's to say.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Executed, Failure, Verdict
from pytest_caretaker.run.command import Ran, Target, launch
from pytest_caretaker.run.findings import Key, key, keys, moved_on, new, reported
from pytest_caretaker.run.hook import CASE
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.patience import patient_run
from pytest_caretaker.verify.protocol import RAISE, SandboxPolicy
from pytest_caretaker.verify.reading import executed_in
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

    def __call__(self, patches: Mapping[str, bytes], timeout: float | None = None) -> Ran:
        return self.run(patches, timeout)[0]

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
                "record": str(workdir / "record.json"),
                "sandbox": self.policy,
            }
            (workdir / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
            target = self.target
            argv = [target.interpreter, *target.options, "-m", CHILD, str(workdir / "spec.json")]
            limit = self.timeout if timeout is None else min(timeout, self.timeout)
            ran = launch(argv, self.root, self.env, limit)
            with contextlib.suppress(OSError):
                record = (workdir / "record.json").read_text(encoding="utf-8")
                ran = replace(ran, record=record)
            return ran, executed_in(trace_file, CASE) if trace else None
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


def failed(ran: Ran, timeout: float) -> str:
    """One line: how a run of the command failed."""
    if ran.timed_out:
        return f"the command still hangs (stopped after {timeout:g} s)"
    last = next((line for line in reversed(ran.output.splitlines()) if line.strip()), "")
    said = f": {last.strip()[:200]}" if last else ""
    return f"the command still fails (exit status {ran.status}){said}"


class Rerun(Protocol):
    """Runs the command again with files (root-relative path -> bytes) changed."""

    def __call__(self, patches: Mapping[str, bytes], timeout: float | None = None) -> Ran: ...


@dataclass
class CommandCheck:
    """A candidate for one finding passes when the command, run again with the fixes made so far
    (base) and the candidate, exits 0, or still fails but no longer reports that finding and
    reports nothing it did not report before, but a crash further on (findings.py); and the
    project's tests that passed before still pass."""

    rerun: Rerun
    findings: Callable[[str], Sequence[Failure]]  # what a run's output reports
    timeout: float
    base: Mapping[str, bytes] = field(default_factory=dict)
    before: Counter[Key] = field(default_factory=Counter)
    seen: frozenset[Key] = frozenset()  # what earlier runs of this loop reported
    #: The project's pytest tests, and the ones that passed before any fix: they must still pass.
    tests: Runner | None = None
    passing: Sequence[str] = field(default_factory=tuple)

    def __call__(
        self, problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict:
        merged = {**self.base, **changes}
        ran = self.rerun(merged, timeout)
        if ran.timed_out and timeout is not None and timeout < self.timeout:
            # Stopped within a limit shorter than the user's: on a busy machine a command that
            # ends can reach it; once more, with more time (patience.py), before it is refused.
            timeout = min(timeout * RAISE, self.timeout)
            ran = self.rerun(merged, timeout)
        if ran.timed_out:
            limit = self.timeout if timeout is None else timeout
            return Verdict(False, failed(ran, limit), ran.output[-MAX_DETAIL:], seconds=ran.seconds)
        if ran.status != 0:
            why = self._still(problem.lead, ran)
            if why is not None:
                return Verdict(False, why, ran.output[-MAX_DETAIL:], seconds=ran.seconds)
        passed = frozenset({problem.lead.nodeid})
        if self.tests is not None and self.passing:
            run = patient_run(self.tests, self.passing, merged, timeout=timeout)
            verdict = judge(run, [], self.passing)
            if not verdict.ok:
                reason = f"the command passes but the {verdict.reason}"
                if ran.status != 0:
                    reason = f"the finding is gone but the {verdict.reason}"
                return Verdict(False, reason, verdict.detail, seconds=ran.seconds)
            passed |= verdict.passed
        return Verdict(True, passed=passed, seconds=ran.seconds)

    def _still(self, lead: Failure, ran: Ran) -> str | None:
        """Why a run that still fails does not count as fixing lead; None when it does."""
        after = self.findings(ran.output)
        counted = keys(after)
        target = key(lead)
        if counted[target] >= self.before[target] or not self.before[target]:
            if reported(lead):
                return f"the command still reports {lead.message}"[:300]
            return failed(ran, self.timeout)
        brought = new(self.before, counted)
        if brought and not moved_on(lead, [f for f in after if key(f) in brought], self.seen):
            said = next(f for f in after if key(f) == brought[0])
            return (
                f"the command no longer reports {lead.nodeid} but now fails with "
                f"{said.exc_type.removesuffix(' reports')}: {said.message}"[:300]
            )
        return None
