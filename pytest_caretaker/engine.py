"""The engine: heal every failure of a run.

One traced baseline rerun (each failure alone, but one of many alike; which neighbours pass; what
each case executed; the failures alone when that does not finish in time); the failures grouped
into problems, one per root cause, each repaired by the chain, concurrently; a fix that heals other
cases of its problem heals them too; then the fixes that hold together are verified together,
saved as a patch, and with --heal-write written and committed. Every failure leaves a transcript.

Nothing here imports pytest: the session (plugin/session.py) turns a pytest run into a
``HealRun``, and other front ends can do the same.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pytest_caretaker import culprit, regression, selection
from pytest_caretaker.builtin.repairer import BuiltinRepairer
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.llm import warmup
from pytest_caretaker.llm.models import api_base_for
from pytest_caretaker.llm.repairer import ModelRepairer
from pytest_caretaker.problem import Limits, Problem, Repairer
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.neighbours import module_of
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.repair import cluster
from pytest_caretaker.repair.chain import Chain
from pytest_caretaker.repair.check import Prover
from pytest_caretaker.repair.memory import FixMemory, RememberedFixes
from pytest_caretaker.repair.proved import ProvedFixes
from pytest_caretaker.report import files as report_files
from pytest_caretaker.report.progress import Step
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import Failure, Fix, HealResult, Written
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.text import printable
from pytest_caretaker.threads import in_threads
from pytest_caretaker.verify.check import PytestCheck
from pytest_caretaker.verify.runner import Runner, RunResult
from pytest_caretaker.verify.trials import Trials, workers_default
from pytest_caretaker.write.writer import Ask, write_fixes

Progress = Callable[[Step], None]


def _quiet(step: Step) -> None:
    """No progress lines."""


@dataclass(frozen=True)
class HealRun:
    """Everything the engine needs from a front end: plain values, no pytest."""

    settings: Settings
    runner: Runner
    failures: Sequence[Failure]  # the failing cases as recorded
    passed: Sequence[str]  # the cases that passed in the run
    test_files: frozenset[str]  # files the run collected tests from
    #: What the run did not run (deselected, not reached) and the test files it chose tests of by
    #: node id: the baseline learns their status, those that pass are kept passing (regression.py).
    unselected: Sequence[str] = ()
    whole_files: frozenset[str] = frozenset()
    python_files: tuple[str, ...] = ("test_*.py", "*_test.py")  # pytest's python_files
    memory: FixMemory = field(default_factory=lambda: FixMemory(None))
    redactor: Redactor = field(default_factory=Redactor)
    progress: Progress = _quiet
    ask: Ask | None = None  # review mode: asked before each fix is written
    defer_write: bool = False  # the front end calls write() (review: once it shows the failures)
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)  # where models are
    #: The chain after remembered fixes; None: the one the settings name (--heal-model).
    repairers: Sequence[Repairer] | None = None


@dataclass
class HealOutcome:
    results: list[HealResult] = field(default_factory=list)
    patch: Path | None = None
    notes: list[str] = field(default_factory=list)
    written: list[Written] = field(default_factory=list)  # with --heal-write, one per fix
    transcripts: dict[str, Transcript] = field(default_factory=dict)
    interrupted: bool = False  # Ctrl-C: report what was done, run nothing more
    fixes: list[Fix] = field(default_factory=list)  # selected; written in order (review: summary's)
    timings: dict[str, float] = field(default_factory=dict)  # seconds each stage took
    session: str = field(default_factory=report_files.new_session)  # its transcripts' folder


def heal_all(run: HealRun) -> HealOutcome:
    begun = time.monotonic()  # the session's healing time counts from here
    settings, runner = run.settings, run.runner
    failing = sorted(run.failures, key=lambda f: f.nodeid)
    # Not all of a 10,000-test module: the traced rerun and every verification must fit.
    ids = [f.nodeid for f in failing]
    neighbours, whole = regression.rerun(ids, run.passed, run.unselected, run.whole_files)
    outcome = HealOutcome()
    passing: list[str] = []  # the neighbours that passed alone too: what no fix may break
    models = warmup.ahead(settings.models)  # none when builtin comes first: see _chain
    if models:  # litellm takes seconds to import: it does while the baseline rerun runs
        warmup.start(models, settings.model_keep, runner.root)
    files = ProjectFiles(runner.root)
    editable = Editable(settings.scope, runner.root, TestFiles(run.test_files, run.python_files))
    wider = regression.Wider(runner, run.passed, ids, files.get)
    check = PytestCheck(runner, wider)
    builtin = _builtin(run, check, files, editable, ids + neighbours)
    try:
        baseline, followers, alone = regression.fitted(runner, failing, neighbours + whole)
        outcome.notes += [regression.ALONE.format(runner.timeout)] if alone else []
        if baseline.problem is not None:
            reason = f"the failing tests could not be rerun: {baseline.problem}"
            outcome.results = [HealResult(f.nodeid, reason=reason) for f in failing]
            return outcome
        passing = regression.passing(baseline, ids)
        chain = Chain(
            _chain(run, files, editable, builtin),
            editable,
            Prover(editable, files, check),
            run.memory,
            files,
            baseline.executed,
            baseline.seconds,
            Limits.of(settings, started=begun),
            culprit.lineage_of(runner, settings, ids, outcome.notes, begun),  # the history
            ProvedFixes(check.survey, ids, passing, baseline.executed),  # fixes for the next
            builtin.weigh if builtin is not None else None,  # a model's fix, beyond the tests
        )
        outcome.timings["to rerun the failures"], began = baseline.seconds, time.monotonic()
        _repair_all(run, failing, passing, baseline, chain, outcome, followers)
        outcome.results = chain.lineage.named(outcome.results, baseline.executed)
        outcome.timings["to repair"] = time.monotonic() - began
    except KeyboardInterrupt:
        _interrupted(outcome, failing)
    finally:
        if builtin is not None:
            builtin.close()
        outcome.notes += [n for n in (run.memory.warning(), run.memory.save()) if n is not None]
    try:
        _settle(run, outcome, failing, passing, wider)
    except KeyboardInterrupt:  # writing handles its own; this is before it began
        outcome.notes.append("caretaker: interrupted while selecting the fixes; none was written")
    return outcome


def _builtin(
    run: HealRun, check: PytestCheck, files: ProjectFiles, editable: Editable, tests: list[str]
) -> BuiltinRepairer | None:
    """The built-in repairer when the chain has it; its trial server collects the tests while
    the baseline rerun goes on."""
    settings = run.settings
    if BUILTIN not in settings.models or run.repairers is not None:
        return None
    trials = Trials.start(run.runner, tests, settings.workers or workers_default())
    budget, partial = settings.builtin_budget, settings.partial
    return BuiltinRepairer(run.runner, check, trials, files, editable, budget, heal_partial=partial)


def _interrupted(outcome: HealOutcome, failing: Sequence[Failure]) -> None:
    """Ctrl-C stops healing, not the report: what was verified before it still stands."""
    outcome.interrupted = True
    outcome.notes.append(
        f"caretaker: healing interrupted; {len(outcome.results)} of "
        f"{len(failing)} failures were done"
    )
    done = {result.nodeid for result in outcome.results}
    outcome.results += [
        HealResult(f.nodeid, reason="not attempted: healing was interrupted (Ctrl-C)")
        for f in failing
        if f.nodeid not in done
    ]


def _chain(
    run: HealRun, files: ProjectFiles, editable: Editable, builtin: BuiltinRepairer | None
) -> list[Repairer]:
    """The repairers in the order they are asked: remembered fixes (unless --heal-no-cache),
    then the configured chain. Fixes found are remembered either way (Chain.repair)."""
    chain: list[Repairer] = [RememberedFixes(run.memory, files)] if run.settings.cache else []
    if run.repairers is not None:
        return [*chain, *run.repairers]
    settings, root = run.settings, files.root  # root: the project the kept model process serves
    later = not warmup.ahead(settings.models)  # builtin first: a model is readied when asked
    models = [name for name in settings.models if name != BUILTIN]
    for model in settings.models:
        if model == BUILTIN:
            chain += [builtin] if builtin is not None else []
            continue
        api_base = api_base_for(model, settings.api_base, run.env)
        asked = ModelRepairer(model, settings, files, editable, run.redactor, api_base)
        chain.append(warmup.WhenAsked(asked, models, settings.model_keep, root) if later else asked)
    return chain


def _repair_all(
    run: HealRun,
    failing: Sequence[Failure],
    passing: Sequence[str],
    baseline: RunResult,
    chain: Chain,
    outcome: HealOutcome,
    followers: Mapping[str, str],  # the cases the baseline did not rerun: whom each follows
) -> None:
    """Group the failures into problems by root cause and repair the groups concurrently."""

    def near(*failures: Failure) -> tuple[str, ...]:
        modules = {module_of(failure.nodeid) for failure in failures}
        return tuple(nodeid for nodeid in passing if module_of(nodeid) in modules)

    def cause(failure: Failure) -> object:
        return cluster.root_cause(failure, baseline, near(failure), chain.files, chain.editable)

    groups = cluster.grouped(failing, followers, cause)
    known = [len(groups)]  # the problems so far: what a fix does not heal is one more
    started = itertools.count(1)
    shown = threading.Lock()

    def repair(group: list[Failure]) -> list[HealResult]:
        results: list[HealResult] = []
        pending, again = list(group), False
        while pending:  # what a fix does not heal is the next problem of the group
            late = chain.limits.out_of_time()
            if late is not None:  # what is not reached in time is said so, and not begun
                for case in pending:
                    outcome.transcripts[case.nodeid] = Transcript(case.nodeid)
                said = f"not attempted: {late}"
                return [*results, *(HealResult(case.nodeid, reason=said) for case in pending)]
            problem = Problem(tuple(pending), near(*pending))
            with shown:
                known[0] += again
                lead, cases = problem.lead.nodeid, len(pending)
                run.progress(Step(next(started), known[0], len(failing), lead, cases))
            solved, pending = cluster.solve(problem, baseline, chain, outcome.transcripts)
            results, again = results + solved, True
        return results

    in_threads(groups, repair, run.settings.concurrency, outcome.results)


def _settle(
    run: HealRun,
    outcome: HealOutcome,
    failing: Sequence[Failure],
    passing: Sequence[str],
    wider: regression.Wider | None = None,
) -> None:
    """Select the fixes that hold together; save the patch and the transcripts; write them."""
    settings, root, began = run.settings, run.runner.root, time.monotonic()
    grouped = selection.group(outcome.results)
    changed = {path for fix in grouped for path in fix.paths}
    if changed and wider is not None and not outcome.interrupted:
        passing = [*passing, *wider(changed)]  # the tests of other modules the fixes reach
    fixes, dropped = selection.together(grouped, run.runner, passing)
    for left in dropped:
        outcome.notes.append(
            f"caretaker: the fix for {left.fix.first.nodeid} is left out of the patch"
            + (" and not written" if settings.write else "")
            + f": {left.reason}"
        )
    # A test is healed only if the patch heals it: a fix left out heals nothing.
    left_out = {result.nodeid: left.reason for left in dropped for result in left.fix.results}
    outcome.results = [
        _left_out(result, why) if (why := left_out.get(result.nodeid)) is not None else result
        for result in outcome.results
    ]
    if not outcome.interrupted:  # every test the patch heals is healed, whatever its repair was
        outcome.results = selection.also_healed(fixes, run.runner, outcome.results, run.failures)
    outcome.timings["to check the fixes together"] = time.monotonic() - began
    recorded = {failure.nodeid: failure for failure in failing}
    # Redacted whole: its verification output shows the values of secret locals again.
    rendered = {
        printable(result.nodeid): printable(
            run.redactor(outcome.transcripts[result.nodeid].render(recorded[result.nodeid], result))
        )
        for result in outcome.results
        if result.nodeid in outcome.transcripts
    }
    patch, kept = selection.patch(fixes), (outcome.session, settings.transcripts)
    outcome.patch, lost = report_files.save(root, patch, rendered, run.redactor, *kept)
    outcome.notes += [lost] if lost is not None else []
    outcome.fixes = sorted(fixes, key=lambda fix: fix.first.nodeid) if run.defer_write else fixes
    if settings.write and not run.defer_write:
        write(run, outcome)


def write(run: HealRun, outcome: HealOutcome) -> None:
    """Write the selected fixes in order, and commit them (--heal-write); review mode asks
    (run.ask) before each, once the front end has shown the failures (defer_write)."""
    began, root, fixes = time.monotonic(), run.runner.root, outcome.fixes
    written, notes = write_fixes(fixes, root, run.settings, run.ask, redactor=run.redactor)
    outcome.written, outcome.notes = written, outcome.notes + notes
    outcome.timings["to write"] = time.monotonic() - began


def _left_out(result: HealResult, why: str) -> HealResult:
    said = f"its fix is left out of the patch: {why}"
    return replace(result, candidate=None, reason=said, via="repair", shared_with="", fallbacks=())
