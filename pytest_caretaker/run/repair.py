"""Repair a command's findings one at a time with the chain of repairers: the built-in repairer
(after a traced rerun of a Python command tells it which lines ran, or, for a ``path:line``
finding, the function holding that line) and the models, in the order the settings name them,
every proposal proved by the command's Check (check.py) on top of the fixes made so far.

``Repairs`` is opened once for all of a run's findings: the sandbox's probe, the project's test
runner and its baseline (which tests pass before any fix) are shared by every finding, and so
are the session's limits (--budget, the healing time)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from pytest_caretaker.builtin.repairer import BuiltinRepairer
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.llm.models import api_base_for
from pytest_caretaker.llm.repairer import ModelRepairer
from pytest_caretaker.problem import Limits, Problem, Repairer
from pytest_caretaker.project.files import ProjectFiles, TestFiles, project_relpath
from pytest_caretaker.project.localize import localize
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.repair.chain import Chain
from pytest_caretaker.repair.check import Prover
from pytest_caretaker.repair.memory import FixMemory
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import Executed, Failure, HealResult
from pytest_caretaker.run.check import CommandCheck, Commands, Rerun
from pytest_caretaker.run.command import Target, shown
from pytest_caretaker.run.copies import Copies
from pytest_caretaker.run.findings import Key, reported, reported_in
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.text import plural
from pytest_caretaker.verify.arguments import standalone_args
from pytest_caretaker.verify.confinement import confinement_for
from pytest_caretaker.verify.environment import candidate_env
from pytest_caretaker.verify.policy import for_project
from pytest_caretaker.verify.protocol import HUNG, SandboxPolicy
from pytest_caretaker.verify.runner import Runner

#: Each test's limit in the run of the project's tests before any fix, where nothing tells yet how
#: long they take (the project's pytest-timeout, if lower, holds): a test that hangs costs this,
#: not the whole run's --timeout, and the tests that pass are still known.
BASELINE_LIMIT = 10.0


@dataclass(frozen=True)
class Repairing:
    settings: Settings
    root: Path
    argv: tuple[str, ...]
    target: Target | None  # the Python script or module the command runs; None: another command
    env: Mapping[str, str]  # the command's, with the hook
    scratch: Path
    redactor: Redactor
    model_env: Mapping[str, str]  # where models are (api keys, OLLAMA_HOST)
    tests: bool | None = None  # rerun the project's tests: None: when it has some


class Unrepairable(Exception):
    """Nothing can be repaired in this run (the sandbox is required but missing…): str() why."""


class Repairs:
    def __init__(self, work: Repairing) -> None:
        self.work = work
        self._stack = ExitStack()
        self.limits = Limits.of(work.settings)
        self.tests: Runner | None = None
        self.passing: tuple[str, ...] = ()
        self.notes: list[str] = []  # what the run of the project's tests before any fix said
        self.rerun: Rerun
        self.commands: Commands | None = None

    def __enter__(self) -> Repairs:
        work, settings = self.work, self.work.settings
        confinement = confinement_for(settings)
        if isinstance(confinement, str):
            raise Unrepairable(confinement)
        policy: SandboxPolicy | None = None
        env = dict(work.env)
        if confinement is not None:  # candidate code: no secret, no socket of the user's
            policy = for_project(work.root, work.scratch, settings.sandbox_network)
            env = candidate_env(env)
        if work.target is not None:
            self.commands = Commands(
                work.target, work.root, env, settings.timeout, work.scratch, policy
            )
            self.rerun = self.commands
        else:
            self.rerun = Copies(work.argv, work.root, env, settings.timeout, work.scratch, policy)
        if work.tests is not False:
            args = standalone_args()
            runner = Runner(
                work.root, work.root, args, settings.timeout, False, confinement, BASELINE_LIMIT
            )
            self.tests = self._stack.enter_context(runner)
            self.passing, self.notes = tests_before(runner)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    def findings(self, output: str, base: Mapping[str, bytes]) -> list[Failure]:
        """What a run's output reports: its last Python traceback, then its path:line lines."""
        work = self.work
        files = ProjectFiles(work.root, base)
        return reported_in(output, work.root, shown(work.argv), files, work.redactor)

    def repair(
        self,
        failure: Failure,
        base: Mapping[str, bytes],
        before: Counter[Key],
        seen: frozenset[Key] = frozenset(),
    ) -> tuple[HealResult, Transcript]:
        """Repair failure on top of base (the fixes made so far); before: what the command
        reported with base, which a fix must not add to; seen: what it reported before that."""
        work, settings = self.work, self.work.settings
        work.redactor.learn_code(work.root, [failure.path, *(f.path for f in failure.frames)])
        check = CommandCheck(
            self.rerun,
            lambda output: self.findings(output, {**base}),
            settings.timeout,
            dict(base),
            before,
            seen,
            self.tests if self.passing else None,
            self.passing,
        )
        files = ProjectFiles(work.root, base)
        is_reported = reported(failure)
        # A script that reports findings is their judge: it is not the code to change.
        editable = Editable(settings.scope, work.root, TestFiles(self._judges(is_reported)))
        executed: dict[str, Executed] = {}
        seconds = 0.0
        if BUILTIN in settings.models:
            if is_reported:
                executed = {failure.nodeid: _held(failure, files)}
            elif self.commands is not None:
                traced, trace = self.commands.run(base, trace=True)
                if traced.status == 0:
                    reason = "the command passes when run again (flaky, or it depends on its state)"
                    return HealResult(failure.nodeid, reason=reason), Transcript(failure.nodeid)
                executed, seconds = ({failure.nodeid: trace} if trace else {}), traced.seconds
        chain = Chain(
            _repairers(work, check, self.tests, files, editable),
            editable,
            Prover(editable, files, check),
            FixMemory(None),
            files,
            executed,
            seconds,
            self.limits,
        )
        suspects = localize(failure, [failure.nodeid], executed, (), files, editable.tests)
        repaired = chain.repair(Problem((failure,)), suspects)
        return repaired.result, repaired.log

    def _judges(self, reported: bool) -> frozenset[str]:
        target = self.work.target
        if not reported or target is None or target.kind != "path":
            return frozenset()
        rel = project_relpath(target.name, self.work.root.resolve())
        return frozenset({rel} if rel is not None else ())


def _held(failure: Failure, files: ProjectFiles) -> Executed:
    """For a path:line finding, what the built-in repairer may mutate: the definition holding
    that line (all of it: a checker names where it noticed, not always the faulty line)."""
    frame = failure.innermost
    source = files.get(frame.path) if frame is not None else None
    if frame is None or source is None:
        return Executed()
    definition = source.enclosing(frame.lineno)
    if definition is None:
        return Executed((), {frame.path: frozenset({frame.lineno})})
    lines = frozenset(range(definition.start, definition.end + 1))
    return Executed(((frame.path, definition.start),), {frame.path: lines})


def tests_before(runner: Runner) -> tuple[tuple[str, ...], list[str]]:
    """The project's tests that pass before any fix, and a note for each that a time limit
    stopped; from then on each test's limit is derived from those that passed, as pytest --heal
    derives it from the user's run (ten times the slowest, 1 s at least)."""
    from pytest_caretaker.verify.timer import derived  # imports pytest: only where tests run

    run = runner.run([])
    passed = {nodeid: o for nodeid, o in run.outcomes.items() if o.outcome == "passed"}
    tests = plural(len(passed), "test")
    notes = [
        f"caretaker: {nodeid}: {o.detail[o.detail.rfind(HUNG) :].splitlines()[0]}, in the run of "
        f"the project's tests before any fix; fixes are checked against the {tests} that passed"
        for nodeid, o in run.outcomes.items()
        if HUNG in o.detail
    ]
    if run.problem is not None:
        notes.append(
            f"caretaker: the project's tests could not be run before any fix: {run.problem}"
        )
    runner.test_limit = derived(o.seconds for o in passed.values()) or runner.test_limit
    return tuple(passed), notes


def _proof(work: Repairing, tests: int) -> str:
    """What a fix the command's check accepts has shown, for the built-in's explanation."""
    checked = (
        f"and the project's {plural(tests, 'passing test')} still "
        + ("passes" if tests == 1 else "pass")
        if tests
        else "(the project has no passing tests to check it against)"
    )
    return f"`{shown(work.argv)}` no longer reports it {checked}"


@dataclass(frozen=True)
class _Bounds:
    root: Path
    timeout: float


def _repairers(
    work: Repairing,
    check: CommandCheck,
    runner: Runner | None,
    files: ProjectFiles,
    editable: Editable,
) -> Sequence[Repairer]:
    settings = work.settings
    chain: list[Repairer] = []
    for model in settings.models:
        if model == BUILTIN:
            bounds = runner if runner is not None else _Bounds(work.root, settings.timeout)
            budget = settings.builtin_budget
            repairer = BuiltinRepairer(bounds, check, None, files, editable, budget)
            repairer.proof = _proof(work, len(check.passing) if check.tests else 0)
            chain.append(repairer)
        else:
            api_base = api_base_for(model, settings.api_base, work.model_env)
            redactor = work.redactor
            chain.append(ModelRepairer(model, settings, files, editable, redactor, api_base))
    return chain
