"""The regression set: the passing tests of the failing tests' modules, whatever the run selected.

The baseline reruns the failing tests with candidates from their modules: the tests that passed in
the run, the ones it did not run (deselected by ``-k``, ``-m``, ``--deselect`` or ``--lf``, not
reached after ``-x``; unselected.py), and whole test files where the run chose tests by node id
and so never collected the rest. The status of those it did not run is learnt there, not assumed:
the ones that pass alone, at most NEIGHBOURS of a module (localize.py), are what no fix may break.
Each candidate is also checked against the session's tests of every other module that imports a
file it changes (``Wider``), those that pass without it; and the fixes together, at the end.

Many failing cases of one bug cost one run more, not two: of the cases of one test function that
failed alike (the same exception at the same line), the baseline reruns the first ALIKE; the
others follow the first (``alike``: they share its root cause, cluster.py) and run in every
proof. When a kind's sampled cases do not all fail again, its followers are rerun too.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from pytest_caretaker.project.imports import conftests, importers
from pytest_caretaker.project.neighbours import module_of, neighbours
from pytest_caretaker.project.reads import Files
from pytest_caretaker.results import Failure
from pytest_caretaker.verify.patience import RUN_HUNG, patient_run
from pytest_caretaker.verify.runner import Runner, RunResult

#: The failing cases of one kind (alike) that the baseline reruns.
ALIKE = 10
#: Of a test function's cases that hung (pytest-timeout stopped them), the baseline reruns two:
#: each costs its whole limit again, and where the loop was when the limit came is chance, not a
#: kind (the nine hanging cases of one bug were nine seconds of the rerun, not two).
ALIKE_HUNG = 2


def rerun(
    failing: Sequence[str],
    passed: Sequence[str],
    unselected: Sequence[str] = (),
    whole_files: Collection[str] = (),
) -> tuple[list[str], list[str]]:
    """What the baseline reruns besides the failing tests: node ids of their modules (those that
    passed in the run, then those it did not run), and the failing tests' files it ran only in
    part by node id, to be run whole."""
    seen = set(failing)
    candidates = [nodeid for nodeid in dict.fromkeys([*passed, *unselected]) if nodeid not in seen]
    modules = {module_of(nodeid) for nodeid in failing}
    return neighbours(failing, candidates), sorted(modules.intersection(whole_files))


def affected(
    changed: Collection[str], passed: Sequence[str], skipped: Collection[str], files: Files
) -> list[str]:
    """The tests of the session, but those of the skipped modules, whose file imports a file
    the fixes change (directly or through project modules): a fix can break them too."""
    modules = dict.fromkeys(module_of(n) for n in passed if module_of(n) not in skipped)
    shared = conftests({module_of(n) for n in passed}, files)  # doctest text files' names
    hit = importers(changed, modules, files, shared)
    return [nodeid for nodeid in passed if module_of(nodeid) in hit]


class Wider:
    """The tests of other modules than the failing ones that a change reaches (``affected``),
    those that pass without it where fixes are checked: run once each, unpatched, when first
    reached (a test that fails there for its own reasons is no evidence against a fix).
    Shared by the problems repaired at once."""

    def __init__(
        self, runner: Runner, passed: Sequence[str], failing: Sequence[str], files: Files
    ) -> None:
        self.runner = runner
        self.passed = passed
        self.skipped = frozenset(module_of(nodeid) for nodeid in failing)
        self.files = files
        self.status: dict[str, bool] = {}
        self._lock = threading.Lock()

    def __call__(self, changed: Collection[str]) -> list[str]:
        reached = affected(changed, self.passed, self.skipped, self.files)
        with self._lock:
            new = [nodeid for nodeid in reached if nodeid not in self.status]
            if new:
                run = patient_run(self.runner, new)
                for nodeid in new:
                    ran = run.outcomes.get(nodeid)
                    self.status[nodeid] = ran is not None and ran.outcome == "passed"
            return [nodeid for nodeid in reached if self.status[nodeid]]


def passing(baseline: RunResult, failing: Sequence[str]) -> list[str]:
    """The regression set: the tests of the failing tests' modules that passed in the baseline,
    but the failing tests themselves, at most NEIGHBOURS of a module."""
    failed = set(failing)
    passed = [
        nodeid
        for nodeid, ran in baseline.outcomes.items()
        if ran.outcome == "passed" and nodeid not in failed
    ]
    return neighbours(failing, passed)


def alike(failures: Sequence[Failure]) -> dict[str, tuple[str, ...]]:
    """Each case beyond the first ALIKE of its kind (one test function's cases that failed with
    the same exception at the same innermost line, in the same phase, or that hung: ALIKE_HUNG),
    with the first of its kind."""
    kinds: dict[tuple[object, ...], list[str]] = {}
    followers: dict[str, tuple[str, ...]] = {}
    for failure in failures:
        inner = failure.innermost
        where = "hung" if failure.timed_out else (inner.path, inner.lineno) if inner else None
        kind = (failure.nodeid.partition("[")[0], failure.when, failure.exc_type, where)
        sampled = kinds.setdefault(kind, [])
        if len(sampled) < (ALIKE_HUNG if failure.timed_out else ALIKE):
            sampled.append(failure.nodeid)
        else:
            followers[failure.nodeid] = tuple(sampled)
    return followers


def baseline(
    runner: Runner, failures: Sequence[Failure], others: Sequence[str]
) -> tuple[RunResult, Mapping[str, str]]:
    """The traced baseline rerun of the failing cases and others, and each case that was not
    rerun with the case it follows (the first of its kind)."""
    followers = alike(failures)
    led = [failure.nodeid for failure in failures if failure.nodeid not in followers]
    run = patient_run(runner, led + list(others), expected=others, trace=True)
    if run.problem is not None:
        return run, {}

    def failed(nodeid: str) -> bool:
        outcome = run.outcomes.get(nodeid)
        return outcome is not None and outcome.outcome != "passed"

    shaky = [nodeid for nodeid, sampled in followers.items() if not all(map(failed, sampled))]
    if shaky:  # a kind that does not fail alike every time: each case speaks for itself
        more = runner.run(shaky, trace=True)
        run = replace(
            run,
            outcomes={**run.outcomes, **more.outcomes},
            executed={**run.executed, **more.executed},
            problem=more.problem,
            seconds=run.seconds + more.seconds,
        )
    return run, {nodeid: sampled[0] for nodeid, sampled in followers.items() if nodeid not in shaky}


#: Said when the failing tests' neighbours were left out of the baseline (fitted).
ALONE = (
    "caretaker: the other tests of the failing tests' modules did not finish within {:g} s beside"
    " them (--heal-timeout); fixes were checked against the failing tests and the other modules'"
    " tests only"
)


def fitted(
    runner: Runner, failures: Sequence[Failure], others: Sequence[str]
) -> tuple[RunResult, Mapping[str, str], bool]:
    """baseline(); when that whole run did not finish in its time with others in it (a module
    whose one test takes longer than --heal-timeout: more-itertools' 9,839-case prime test),
    the failing cases alone, so that they can still be healed: True then."""
    run, followers = baseline(runner, failures, others)
    if not (others and run.problem is not None and run.problem.startswith(RUN_HUNG)):
        return run, followers, False
    alone, followers = baseline(runner, failures, [])
    if alone.problem is not None:
        return run, followers, False
    return replace(alone, seconds=run.seconds + alone.seconds), followers, True
