"""Heal every recorded failure of a run: one traced baseline rerun, one repair per failure,
then the fixes that hold together: verified together, saved as a patch, and with --heal-write
written and committed. Every failure leaves a transcript.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_caretaker import selection
from pytest_caretaker.builtin.repairer import Builtin
from pytest_caretaker.llm import client as llm
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.repair import cluster
from pytest_caretaker.repair.chain import Repairer
from pytest_caretaker.repair.memory import Memory
from pytest_caretaker.report import summary as report
from pytest_caretaker.report import transcript
from pytest_caretaker.results import Failure, HealResult, Written
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.verify.runner import Runner
from pytest_caretaker.verify.trials import Trials
from pytest_caretaker.write.writer import Ask, write_fixes


@dataclass
class HealOutcome:
    results: list[HealResult] = field(default_factory=list)
    patch: Path | None = None
    notes: list[str] = field(default_factory=list)
    written: list[Written] = field(default_factory=list)  # with --heal-write, one per fix


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
    memory: Memory,
    ask: Ask | None = None,
    redactor: Redactor | None = None,
) -> HealOutcome:
    root = runner.root
    sources = ProjectFiles(root)
    patterns = tuple(str(p) for p in config.getini("python_files"))
    tests = TestFiles(frozenset(test_files), patterns)
    failing = sorted(recorded, key=lambda f: f.nodeid)
    modules = {module_of(f.nodeid) for f in failing}
    neighbours = [nodeid for nodeid in passed if module_of(nodeid) in modules]

    outcome = HealOutcome()
    passing: list[str] = []  # the neighbours that passed alone too: what no fix may break
    if any(model != BUILTIN for model in settings.models):
        # litellm takes seconds to import: do it while the baseline rerun waits on its worker.
        threading.Thread(target=llm.preload, name="caretaker-import", daemon=True).start()
    repairer = Repairer(settings, runner, sources, tests, root, memory=memory)
    if redactor is not None:  # the session's: it learnt the secret locals of the run
        repairer.redactor = redactor
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
        passing = [
            nodeid
            for nodeid in neighbours
            if baseline.outcomes.get(nodeid) is not None
            and baseline.outcomes[nodeid].outcome == "passed"
        ]

        def near(*failures: Failure) -> list[str]:
            modules = {module_of(failure.nodeid) for failure in failures}
            return [nodeid for nodeid in passing if module_of(nodeid) in modules]

        # Failures with one root cause are repaired once (cluster.py); clusters run concurrently.
        groups = cluster.clusters(
            failing, lambda f: cluster.root_cause(repairer, f, baseline, near(f))
        )
        started = itertools.count(1)
        shown = threading.Lock()

        def repair(group: list[Failure]) -> list[HealResult]:
            results: list[HealResult] = []
            pending = list(group)
            while pending:
                failure = pending.pop(0)
                with shown:
                    progress(next(started), len(failing), failure.nodeid)
                result = repairer.heal(failure, baseline, near(failure))
                shared, pending = cluster.share(repairer, result, pending, near(*pending))
                results += [result, *shared]
            return results

        in_threads(groups, repair, settings.concurrency, outcome.results)
    except KeyboardInterrupt:
        # Ctrl-C stops healing, not the report: what was verified before it still stands.
        outcome.notes.append(
            f"caretaker: healing interrupted; {len(outcome.results)} of "
            f"{len(failing)} failures were done"
        )
        done = {result.nodeid for result in outcome.results}
        outcome.results += [
            HealResult(f.nodeid, False, "not attempted: healing was interrupted (Ctrl-C)")
            for f in failing
            if f.nodeid not in done
        ]
    finally:
        if repairer.builtin is not None:
            repairer.builtin.close()
        memory.save()
    try:
        _settle(outcome, repairer, failing, passing, ask)
    except KeyboardInterrupt:  # writing handles its own; this is before it began
        outcome.notes.append("caretaker: interrupted while selecting the fixes; none was written")
    return outcome


def in_threads(
    jobs: Sequence[list[Failure]],
    work: Callable[[list[Failure]], list[HealResult]],
    concurrency: int,
    into: list[HealResult],
) -> None:
    """Run work on each job, up to concurrency at once, adding each job's results to into as it
    finishes. Threads are daemons: on Ctrl-C the caller returns at once, and what is still in
    flight (a model call) is dropped, never added after the interruption."""
    queue = list(jobs)
    lock = threading.Lock()
    stopped = False
    failed: list[BaseException] = []

    def worker() -> None:
        while True:
            with lock:
                if stopped or not queue:
                    return
                job = queue.pop(0)
            try:
                results = work(job)
            except BaseException as error:  # repairer.heal contains its own; this is a bug
                with lock:
                    failed.append(error)
                return
            with lock:
                if not stopped:
                    into.extend(results)

    if concurrency <= 1 or len(jobs) <= 1:
        worker()  # in this thread: nothing to overlap
    else:
        threads = [
            threading.Thread(target=worker, name=f"caretaker-repair-{n}", daemon=True)
            for n in range(min(concurrency, len(jobs)))
        ]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.1)  # a timeout, so that Ctrl-C reaches this thread
        except KeyboardInterrupt:
            with lock:
                stopped = True
            raise
    if failed:
        raise failed[0]


def _settle(
    outcome: HealOutcome,
    repairer: Repairer,
    failing: Sequence[Failure],
    passing: Sequence[str],
    ask: Ask | None,
) -> None:
    """Select the fixes that hold together; save the patch and the transcripts; write them."""
    settings, root = repairer.settings, repairer.root
    fixes, dropped = selection.together(selection.group(outcome.results), repairer.runner, passing)
    for left in dropped:
        outcome.notes.append(
            f"caretaker: the fix for {left.fix.first.nodeid} is left out of the patch"
            + (" and not written" if settings.write else "")
            + f": {left.reason}"
        )
    outcome.patch = report.write_patch(root, selection.patch(fixes))
    recorded = {failure.nodeid: failure for failure in failing}
    # Redacted as a whole: besides the prompts it holds verification output, which shows
    # the values of the run's secret locals again.
    transcripts = {
        result.nodeid: repairer.redactor(
            repairer.transcripts[result.nodeid].render(recorded[result.nodeid], result)
        )
        for result in outcome.results
        if result.nodeid in repairer.transcripts
    }
    transcript.write_all(report.output_dir(root), transcripts)
    if settings.write:
        outcome.written, notes = write_fixes(fixes, root, settings, ask)
        outcome.notes += notes
