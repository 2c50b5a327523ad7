"""Repair one recorded crash with the chain of repairers: the built-in repairer (after a traced
replay tells it which lines ran) and the models, in the order the settings name them, every
proposal proved by the replay Check (check.py): the recorded call, the function's recorded good
calls that the code as it is reproduces (goodcalls.py; the traced replay makes them first), and
the tests that run it. The fix says what proved it, and is UNSURE when the recorded call alone
did (proof.py). The pattern is run/repair.py's, for a call."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from pytest_caretaker.builtin.repairer import BuiltinRepairer
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.llm import warmup
from pytest_caretaker.llm.models import api_base_for
from pytest_caretaker.llm.repairer import ModelRepairer
from pytest_caretaker.problem import Limits, Problem, Repairer
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import localize
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.repair.chain import Chain
from pytest_caretaker.repair.check import Prover
from pytest_caretaker.repair.memory import FixMemory
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import Executed, HealResult
from pytest_caretaker.runtime.check import Replay, ReplayCheck, key, reproduced
from pytest_caretaker.runtime.goodcalls import load
from pytest_caretaker.runtime.proof import Evidence, settled
from pytest_caretaker.runtime.records import Crash
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.text import plural
from pytest_caretaker.verify.arguments import standalone_args
from pytest_caretaker.verify.confinement import confinement_for
from pytest_caretaker.verify.policy import for_project
from pytest_caretaker.verify.runner import Runner

_SKIPPED = {".git", ".caretaker", ".venv", "venv", "node_modules", "__pycache__", ".tox"}
#: Why a crash whose call no longer raises is not repaired (offline, it is marked fixed instead).
RETURNS = (
    "the call returns when replayed (fixed already, or its outcome depends on state or time), "
    "so no fix can be proved"
)


@dataclass(frozen=True)
class Repairing:
    settings: Settings
    root: Path
    scratch: Path
    redactor: Redactor
    model_env: Mapping[str, str]  # where models are (api keys, OLLAMA_HOST)


@dataclass(frozen=True)
class Bounds:
    """What the built-in repairer needs of a runner: the root and the time limit of a run."""

    root: Path
    timeout: float


def repair(work: Repairing, crash: Crash) -> tuple[HealResult, Transcript]:
    """The crash's HealResult (named by its id) and the transcript of its repair."""
    settings, root, failure = work.settings, work.root, crash.failure
    if not crash.replayable:
        reason = f"the call cannot be replayed ({crash.why}), so no fix can be proved"
        return HealResult(failure.nodeid, reason=reason), Transcript(failure.nodeid)
    confinement = confinement_for(settings)
    if isinstance(confinement, str):
        return HealResult(failure.nodeid, reason=confinement), Transcript(failure.nodeid)
    models = [model for model in settings.models if model != BUILTIN]
    if models:
        # litellm takes seconds to import: the model process does it while the replays and
        # the tests run.
        warmup.start(models, settings.model_keep, root)
    policy = None
    if confinement:
        policy = for_project(root, work.scratch, settings.sandbox_network)
    good = load(root, crash.id)
    replay = Replay(crash, root, settings.timeout, work.scratch, policy, good, work.redactor)
    with Runner(root, root, standalone_args(), settings.timeout, False, confinement) as tests:
        passing = _exercising(tests, crash) if has_tests(root) else ()
        # Replayed as it is first: a call that returns now proves nothing of any candidate.
        traced, trace = replay.run({}, trace=BUILTIN in settings.models)
        if traced.ok:
            return HealResult(failure.nodeid, reason=RETURNS), Transcript(failure.nodeid)
        replay.good = reproduced(good, traced)  # the others prove nothing of a fix
        evidence = Evidence(len(replay.good), len(good) - len(replay.good), len(passing))
        check = ReplayCheck(replay, tests if passing else None, passing)
        executed = {failure.nodeid: trace} if trace else {}
        files = ProjectFiles(root)
        editable = Editable(settings.scope, root, TestFiles(frozenset()))
        chain = Chain(
            _repairers(work, check, files, editable),
            editable,
            Prover(editable, files, check),
            FixMemory(None),
            files,
            executed,
            traced.seconds,
            Limits.of(settings),
        )
        suspects = localize(failure, [failure.nodeid], executed, (), files, editable.tests)
        repaired = chain.repair(Problem((failure,), passing), suspects)
        return _settled(repaired.result, evidence, crash, check), _logged(repaired.log, check)


def _settled(
    result: HealResult, evidence: Evidence, crash: Crash, check: ReplayCheck
) -> HealResult:
    """The fix saying what proved it (UNSURE when the recorded call alone did); a crash not
    healed says how many fixes its good calls refused, and the first."""
    if result.candidate is not None:
        returned = check.returned.get(key({c.path: c.after for c in result.changes}), "")
        return settled(result, evidence, crash, returned)
    if not check.refused:
        return result
    count = len(check.refused)
    said = (
        f"{result.reason}; {plural(count, 'fix', 'fixes')} that stop the exception "
        f"{'was' if count == 1 else 'were'} refused because a recorded good call returns "
        f"something else with {'it' if count == 1 else 'them'}: {check.refused[0]}"
    )
    return replace(result, reason=said)


def _logged(log: Transcript, check: ReplayCheck) -> Transcript:
    if check.refused:
        refused = "\n".join(f"- {line}" for line in check.refused)
        log.add("Refused by the recorded good calls", refused)
    return log


def has_tests(root: Path) -> bool:
    """Whether the project has a pytest test file (test_*.py or *_test.py)."""
    for _, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIPPED and not d.startswith(".")]
        if any(fnmatch.fnmatch(n, "test_*.py") or fnmatch.fnmatch(n, "*_test.py") for n in names):
            return True
    return False


def _exercising(tests: Runner, crash: Crash) -> tuple[str, ...]:
    """The project's tests that pass now and run the function: the regression set."""
    where = crash.where
    rel = crash.failure.innermost.path if crash.failure.innermost else ""
    for frame in crash.failure.frames:
        if frame.name == where.qualname.rpartition(".")[2]:
            rel = frame.path
    baseline = tests.run([], trace=True)
    return tuple(
        nodeid
        for nodeid, outcome in baseline.outcomes.items()
        if outcome.outcome == "passed"
        and (rel, where.line) in baseline.executed.get(nodeid, Executed()).functions
    )


def _repairers(
    work: Repairing, check: ReplayCheck, files: ProjectFiles, editable: Editable
) -> list[Repairer]:
    settings = work.settings
    chain: list[Repairer] = []
    for model in settings.models:
        if model == BUILTIN:
            budget = settings.builtin_budget
            bounds = Bounds(work.root, settings.timeout)
            tests = len(check.passing) if check.tests is not None else 0
            proof = "The recorded call returns now" + (
                ""
                if not tests
                else " and the project test that runs it still passes"
                if tests == 1
                else f" and the {tests} project tests that run it still pass"
            )
            chain.append(BuiltinRepairer(bounds, check, None, files, editable, budget, proof=proof))
        else:
            api_base = api_base_for(model, settings.api_base, work.model_env)
            redactor = work.redactor
            chain.append(ModelRepairer(model, settings, files, editable, redactor, api_base))
    return chain
