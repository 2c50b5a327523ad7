"""The Check of a failing pytest test: its problem's cases and regression set, run by the Runner
in another process with the candidate's sources served in memory, then judged.

The lead case must pass and the regression set must still pass, and so must the tests of other
modules that import a file the candidate changes (``wider``, regression.Wider); the other cases
that pass are in the verdict's evidence, so one run tells which cases of the problem the fix
heals.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Verdict
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.runner import Runner


class PytestCheck:
    def __init__(
        self, runner: Runner, wider: Callable[[Collection[str]], Sequence[str]] | None = None
    ) -> None:
        self.runner = runner
        #: The tests of other modules that the changed files reach, which must pass too.
        self.wider = wider

    def __call__(
        self, problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict:
        regression = list(problem.regression)
        if self.wider is not None:
            regression += [n for n in self.wider(list(changes)) if n not in regression]
        run = self.runner.run([*problem.ids, *regression], changes, timeout=timeout)
        return judge(run, [problem.lead.nodeid], regression)
