"""Heal every recorded failure of a run: one traced baseline rerun, one repair per failure,
then the combined patch of all verified fixes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_caretaker import llm, report
from pytest_caretaker.builtin import Builtin
from pytest_caretaker.failures import Failure
from pytest_caretaker.localize import Sources, TestFiles
from pytest_caretaker.repair import HealResult, Repairer
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.trials import Trials
from pytest_caretaker.verify import Runner


@dataclass
class HealOutcome:
    results: list[HealResult] = field(default_factory=list)
    patch: Path | None = None
    notes: list[str] = field(default_factory=list)


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def heal_all(
    runner: Runner,
    config: pytest.Config,
    settings: Settings,
    recorded: Sequence[Failure],
    passed: Sequence[str],
    test_files: set[str],
    progress: Callable[[int, int, str], None],
) -> HealOutcome:
    root = runner.root
    sources = Sources(root)
    patterns = tuple(str(p) for p in config.getini("python_files"))
    tests = TestFiles(frozenset(test_files), patterns)
    failing = sorted(recorded, key=lambda f: f.nodeid)
    modules = {module_of(f.nodeid) for f in failing}
    neighbours = [nodeid for nodeid in passed if module_of(nodeid) in modules]

    outcome = HealOutcome()
    if any(model != BUILTIN for model in settings.models):
        # litellm takes seconds to import: do it while the baseline rerun waits on its worker.
        threading.Thread(target=llm.preload, name="caretaker-import", daemon=True).start()
    repairer = Repairer(settings, runner, sources, tests, root)
    if BUILTIN in settings.models:
        # The trial server collects these tests while the baseline rerun goes on.
        trials = Trials.start(runner, [f.nodeid for f in failing] + neighbours)
        repairer.builtin = Builtin(
            runner, trials, sources, tests, repairer.editable_path, settings.builtin_budget
        )
    try:
        # One traced rerun: does each failure reproduce alone, which neighbours pass alone,
        # and what project code each test executed (the evidence for localization).
        baseline = runner.run([f.nodeid for f in failing] + neighbours, trace=True)
        if baseline.problem is not None:
            reason = f"the failing tests could not be rerun: {baseline.problem}"
            outcome.results = [HealResult(f.nodeid, False, reason) for f in failing]
            return outcome
        for index, failure in enumerate(failing, start=1):
            progress(index, len(failing), failure.nodeid)
            regression = [
                nodeid
                for nodeid in neighbours
                if module_of(nodeid) == module_of(failure.nodeid)
                and baseline.outcomes.get(nodeid) is not None
                and baseline.outcomes[nodeid].outcome == "passed"
            ]
            outcome.results.append(repairer.heal(failure, baseline, regression))
    except KeyboardInterrupt:
        # Ctrl-C stops healing, not the report: what was verified before it still stands.
        outcome.notes.append(
            f"caretaker: healing interrupted; {len(outcome.results)} of "
            f"{len(failing)} failures were done"
        )
    finally:
        if repairer.builtin is not None:
            repairer.builtin.close()
    patch, left_out = report.combined_patch(outcome.results)
    outcome.patch = report.write_patch(root, patch)
    for nodeid in left_out:
        outcome.notes.append(
            f"caretaker: the fix for {nodeid} conflicts with another fix and is not in the patch"
        )
    return outcome
