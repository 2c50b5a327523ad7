"""The Check of a failing pytest test: its problem's cases and regression set, run by the Runner
in another process with the candidate's sources served in memory, then judged.

The lead case must pass and the regression set must still pass; the other cases that pass are in
the verdict's evidence, so one run tells which cases of the problem the fix heals.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Verdict
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.runner import Runner


class PytestCheck:
    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def __call__(
        self, problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict:
        run = self.runner.run([*problem.ids, *problem.regression], changes, timeout=timeout)
        return judge(run, [problem.lead.nodeid], problem.regression)
