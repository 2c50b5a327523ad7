"""The regression set: the passing tests of the failing tests' modules, whatever the run selected.

The baseline reruns the failing tests with candidates from their modules: the tests that passed in
the run, the ones it did not run (deselected by ``-k``, ``-m``, ``--deselect`` or ``--lf``, not
reached after ``-x``; unselected.py), and whole test files where the run chose tests by node id
and so never collected the rest. The status of those it did not run is learnt there, not assumed:
the ones that pass alone, at most NEIGHBOURS of a module (localize.py), are what no fix may break.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pytest_caretaker.project.localize import module_of, neighbours
from pytest_caretaker.verify.runner import RunResult


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
