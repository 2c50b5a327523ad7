"""The Check of a failing pytest test: its problem's cases and regression set, run by the Runner
in another process with the candidate's sources served in memory, then judged.

The lead case must pass and the regression set must still pass, and so must the tests of other
modules that import a file the candidate changes (``wider``, regression.Wider); the other cases
that pass are in the verdict's evidence, so one run tells which cases of the problem the fix
heals.

One root cause often fails tests that the session groups into several problems (different
tests, different assertions); each finds the same fix first and proves it. A proof runs the
problem's cases and its regression set, but for the tests already seen passing with exactly
those changes: the second proof of a fix costs its own cases, not the whole suite again, and
nothing at all when a ``survey`` (repair/proved.py) saw its tests pass under the fix (the fixes
kept are checked together once more at the end: selection.py).

A fix's cases pass more than once: in the proof, with its regression set, then (the first
AGAIN_CASES of them) AGAIN times alone, each in a fresh process; any of them that fails there
refuses the fix, since under the same code a test that passes one run and fails the next passes
by chance. Code that draws random numbers, reads the clock or depends on what ran before can
(cachetools' RRCache evicts by ``random.choice``: a wrong candidate passed its trial and its
proof, and the tests it "healed" failed in the user's next run).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Verdict
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.patience import patient_run
from pytest_caretaker.verify.runner import Runner

#: How many more times the cases a proof saw pass are run, each in a fresh process. A wrong
#: candidate of cachetools' RRCache (``key`` for ``index``) passed a proof 114 times in 400; with
#: two more runs 5 times in 400, and it was still written in 1 of 14 sessions; with four, 0 in 400
#: and 0 in 14 (chance lowered, not ruled out).
AGAIN = 4
#: Of those cases, the first this many (the lead first): a wrong fix passes many cases together
#: by chance far more rarely than a few, and a bug of 300 cases must not cost three runs of them
#: all (as many as the baseline reruns of cases that failed alike, regression.ALIKE).
AGAIN_CASES = 10


class PytestCheck:
    def __init__(
        self, runner: Runner, wider: Callable[[Collection[str]], Sequence[str]] | None = None
    ) -> None:
        self.runner = runner
        #: The tests of other modules that the changed files reach, which must pass too.
        self.wider = wider
        #: Per set of changes (their digest), the tests seen passing with them in a proof.
        self._passed: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()

    def __call__(
        self, problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict:
        regression = list(problem.regression)
        if self.wider is not None:
            regression += [n for n in self.wider(list(changes)) if n not in regression]
        key = _digest(changes)
        with self._lock:
            known = self._passed.get(key, frozenset())
        fresh = [nodeid for nodeid in regression if nodeid not in known]
        cases = [nodeid for nodeid in problem.ids if nodeid not in known]
        seen = known & {*problem.ids, *regression}
        if not cases and not fresh:  # every test of the proof was seen passing with the changes
            return Verdict(True, passed=seen)
        run = patient_run(self.runner, [*cases, *fresh], changes, timeout=timeout)
        lead = [problem.lead.nodeid] if problem.lead.nodeid in cases else []
        verdict = judge(run, lead, fresh)
        if verdict.ok:
            verdict = self._again(cases, changes, verdict, timeout)
        if verdict.ok:
            self._remember(key, verdict.passed)
        return replace(verdict, passed=verdict.passed | seen) if verdict.ok else verdict

    def _again(
        self,
        cases: Sequence[str],
        changes: Mapping[str, bytes],
        verdict: Verdict,
        timeout: float | None,
    ) -> Verdict:
        """verdict, or a refusal when one of the first AGAIN_CASES cases it saw pass fails in
        one of AGAIN more runs: under the same code, a test that passes one run and fails the
        next passes by chance."""
        healed = [nodeid for nodeid in cases if nodeid in verdict.passed][:AGAIN_CASES]
        slow = bool(verdict.notes)  # the cases needed more time on this machine: they get it
        seconds = verdict.seconds
        for _ in range(AGAIN if healed else 0):
            run = patient_run(self.runner, healed, changes, timeout=timeout, slow=slow)
            again = judge(run, healed, [])
            seconds += again.seconds
            if not again.ok:
                why = (
                    f"{again.reason} when run again (it passed the first run: it passes by chance)"
                )
                return Verdict(False, why, again.detail, seconds=seconds)
        return replace(verdict, seconds=seconds)

    def survey(self, changes: Mapping[str, bytes], nodeids: Sequence[str]) -> frozenset[str] | None:
        """Those of nodeids that pass under changes (a proved fix), remembered for the proofs of
        the same changes to come; None when the run failed as a whole."""
        with self._lock:
            known = self._passed.get(_digest(changes), frozenset())
        unknown = [nodeid for nodeid in nodeids if nodeid not in known]
        run = patient_run(self.runner, unknown, changes) if unknown else None
        if run is not None and (run.problem is not None or run.collect_errors):
            return None
        passed = {n for n, o in run.outcomes.items() if o.outcome == "passed"} if run else set()
        self._remember(_digest(changes), passed)
        return frozenset(passed) | (known & set(nodeids))

    def _remember(self, key: str, passed: Collection[str]) -> None:
        with self._lock:
            self._passed[key] = self._passed.get(key, frozenset()) | frozenset(passed)


def _digest(changes: Mapping[str, bytes]) -> str:
    digest = hashlib.sha256()
    for path, data in sorted(changes.items()):
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()
