"""Repair one crash of a command with the chain of repairers: the built-in repairer (after a
traced rerun tells it which lines ran) and the models, in the order the settings name them, every
proposal proved by the command's Check (check.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_caretaker.builtin.repairer import BuiltinRepairer
from pytest_caretaker.guard.scope import Editable
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
from pytest_caretaker.results import Executed, Failure, HealResult
from pytest_caretaker.run.check import CommandCheck, Commands
from pytest_caretaker.run.command import Target
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.verify import sandbox
from pytest_caretaker.verify.runner import Confinement, Runner

#: How the project's own tests are rerun: quietly, no cache, no caretaker inside.
PYTEST_ARGS = ("-q", "--no-header", "--tb=short", "-p", "no:cacheprovider", "-o", "addopts=")


@dataclass(frozen=True)
class Repairing:
    settings: Settings
    root: Path
    target: Target
    env: Mapping[str, str]  # the command's, with the hook
    scratch: Path
    redactor: Redactor
    model_env: Mapping[str, str]  # where models are (api keys, OLLAMA_HOST)


def repair(work: Repairing, failure: Failure) -> tuple[HealResult, Transcript]:
    settings, root = work.settings, work.root
    confinement = _confinement(settings)
    if isinstance(confinement, str):
        return HealResult(failure.nodeid, reason=confinement), Transcript(failure.nodeid)
    policy = sandbox.policy(root, work.scratch, settings.sandbox_network) if confinement else None
    commands = Commands(work.target, root, work.env, settings.timeout, work.scratch, policy)
    with Runner(root, root, PYTEST_ARGS, settings.timeout, False, confinement) as tests:
        baseline = tests.run([])
        passing = tuple(k for k, v in baseline.outcomes.items() if v.outcome == "passed")
        check = CommandCheck(commands, tests if passing else None, passing)
        executed: dict[str, Executed] = {}
        seconds = 0.0
        if BUILTIN in settings.models:
            traced, trace = commands.run({}, trace=True)
            if traced.status == 0:
                reason = "the command passes when run again (flaky, or it depends on its state)"
                return HealResult(failure.nodeid, reason=reason), Transcript(failure.nodeid)
            executed, seconds = ({failure.nodeid: trace} if trace else {}), traced.seconds
        files = ProjectFiles(root)
        editable = Editable(settings.scope, root, TestFiles(frozenset()))
        chain = Chain(
            _repairers(work, check, tests, files, editable),
            editable,
            Prover(editable, files, check),
            FixMemory(None),
            files,
            executed,
            seconds,
            Limits(settings.budget, settings.max_tokens, settings.healing_budget),
        )
        suspects = localize(failure, [failure.nodeid], executed, (), files, editable.tests)
        repaired = chain.repair(Problem((failure,)), suspects)
        return repaired.result, repaired.log


def _confinement(settings: Settings) -> Confinement | str | None:
    """The sandbox to run candidates in; None without one; a string: why none can be had."""
    if settings.sandbox == "off":
        return None
    from pytest_caretaker.verify.probe import unavailable

    why = unavailable(settings.sandbox_network)
    if why is None:
        return Confinement(settings.sandbox_network)
    if settings.sandbox == "require":
        return f"the sandbox is required (--sandbox require) but not available: {why}"
    return None


def _repairers(
    work: Repairing,
    check: CommandCheck,
    runner: Runner,
    files: ProjectFiles,
    editable: Editable,
) -> list[Repairer]:
    settings = work.settings
    chain: list[Repairer] = []
    for model in settings.models:
        if model == BUILTIN:
            budget = settings.builtin_budget
            chain.append(BuiltinRepairer(runner, check, None, files, editable, budget))
        else:
            api_base = api_base_for(model, settings.api_base, work.model_env)
            redactor = work.redactor
            chain.append(ModelRepairer(model, settings, files, editable, redactor, api_base))
    return chain
