"""The chain: repair one problem with each repairer in turn (a remembered fix, the built-in
repairer, the models in ``--heal-model`` order) until one heals it, or one whose checked attempts
decide says it cannot. What each failed link said goes into the result as a fallback.

Every repairer sits behind one protocol (``problem.Repairer``), so the chain has no special case
for any of them; budgets and token caps belong to the model repairer, the order to the settings.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from pytest_caretaker.changes.lineage import Lineage
from pytest_caretaker.guard.scope import Editable, own_fault_reason
from pytest_caretaker.problem import Failed, Healed, Limits, Problem, Repairer, Task
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.project.testfault import own_fault
from pytest_caretaker.repair.check import Prover
from pytest_caretaker.repair.memory import FixMemory
from pytest_caretaker.repair.proved import ProvedFixes
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import Executed, HealResult, Spend
from pytest_caretaker.settings import BUILTIN
from pytest_caretaker.text import short, where


@dataclass(frozen=True)
class Repaired:
    """A problem's outcome for its lead case, what passed in the check that proved the fix (the
    other cases it heals too), and the transcript of the repair."""

    result: HealResult
    passed: frozenset[str]
    log: Transcript


@dataclass(frozen=True)
class Chain:
    repairers: Sequence[Repairer]
    editable: Editable
    prover: Prover
    memory: FixMemory
    files: ProjectFiles
    executed: Mapping[str, Executed]
    baseline_seconds: float
    limits: Limits = field(default_factory=Limits)
    #: What the history tells of each failing case (the change since it passed: culprit/).
    lineage: Lineage = field(default_factory=Lineage)
    #: The fixes proved so far in the session: the first link for every later problem.
    proved: ProvedFixes = field(default_factory=ProvedFixes)
    #: Weighs a fix found by a link that does not weigh its own (a model's) beyond the tests.
    weigh: Callable[[Task, Healed], Healed] | None = None

    def repair(self, problem: Problem, suspects: Sequence[Suspect]) -> Repaired:
        started = time.monotonic()
        log = Transcript(problem.lead.nodeid)
        try:
            result, passed = self._repair(problem, tuple(suspects), log)
        except Exception as error:  # one problem's trouble must not stop the others
            reason = f"caretaker failed on this test: {error!r}{where(error)}; please report it"
            log.add("Internal error", reason)
            result, passed = HealResult(problem.lead.nodeid, reason=reason), frozenset()
        self.proved.done(result, problem.ids)  # its fix, for the problems to come
        # An UNSURE fix is not remembered: a later run would replay it as a plain HEALED.
        if result.healed and not result.unsure and result.via != "cache":
            self.memory.remember(
                problem.lead, result.edits, result.explanation, result.repairer, self.files
            )
        spend = replace(result.spend, seconds=time.monotonic() - started)
        return Repaired(replace(result, spend=spend), passed, log)

    def _weighed(self, task: Task, outcome: Healed | Failed) -> Healed | Failed:
        """A fresh fix of a link that does not weigh its own (a model's), weighed beyond the
        tests; the built-in repairer's own, and remembered or shared fixes, as they are."""
        if not isinstance(outcome, Healed) or outcome.via != "repair" or self.weigh is None:
            return outcome
        return outcome if outcome.by == BUILTIN else self.weigh(task, outcome)

    def _out_of_scope(self, problem: Problem, suspects: Sequence[Suspect]) -> HealResult | None:
        """Why no repairer is asked, when none could heal the failure while the scope holds:
        nothing the test ran may be edited (and which programs it started: the code they ran,
        no trace saw), or the failure is the test's own (its line uses a name nothing
        defines…), whatever it ran first. None when the repairers are to be asked."""
        lead = problem.lead
        if not any(self.editable.path(suspect.path) for suspect in suspects):
            ran = self.executed.get(lead.nodeid)
            spawned = ran.spawned if ran is not None else ()
            why = self.editable.nothing_editable(spawned, traced=ran is not None)
            return HealResult(lead.nodeid, reason=why)
        frame = lead.innermost
        if frame is None or self.editable.path(frame.path):
            return None
        what = own_fault(lead, self.files, self.editable.tests)
        return None if what is None else HealResult(lead.nodeid, reason=own_fault_reason(what))

    def _repair(
        self, problem: Problem, suspects: tuple[Suspect, ...], log: Transcript
    ) -> tuple[HealResult, frozenset[str]]:
        nodeid = problem.lead.nodeid
        refused = self._out_of_scope(problem, suspects)
        if refused is not None:
            return refused, frozenset()
        changes = self.lineage.changes_for(nodeid)
        if changes is not None:  # what changed since the test passed is suspect first
            suspects = changes.boost(suspects, self.files)
            log.add("Changed since it passed", changes.summary())
        task = Task(
            problem,
            suspects,
            self.executed,
            self.baseline_seconds,
            partial(self.prover, problem),
            log,
            self.limits,
            changes=changes,
        )
        task = replace(task, proved_since=partial(self.proved.repair, task))
        outcome: Healed | Failed = Failed("no model to ask")
        name, failed = "", list[str]()  # "name: reason" of each link of the chain that failed
        total = Spend()
        # What this session proved already comes first (no links, no chain: nothing to ask).
        for repairer in (self.proved, *self.repairers) if self.repairers else ():
            asked = replace(task, earlier_tokens=total.tokens)  # the cap holds over the chain
            outcome, name = self._weighed(task, repairer.repair(asked)), repairer.name
            total = _add_model_spend(total, outcome.spend)
            if isinstance(outcome, Healed) or outcome.decisive:
                break
            if outcome.reason:  # a link with nothing to say (no remembered fix) is no fallback
                failed.append(short(f"{name}: {outcome.reason}"))
        else:
            if len(failed) > 1 and isinstance(outcome, Failed):
                # every link failed: the reason names each one and why
                outcome = replace(outcome, reason="; then ".join(failed))
            elif isinstance(outcome, Failed) and outcome.advice:  # the one link that spoke
                outcome = replace(outcome, reason=f"{outcome.reason} ({outcome.advice})")
        spend = _totalled(outcome.spend, total)
        if isinstance(outcome, Failed):
            return HealResult(
                nodeid, reason=outcome.reason, spend=spend, repairer=name
            ), frozenset()
        result = HealResult(
            nodeid,
            outcome.candidate,
            spend=spend,
            repairer=outcome.by,
            via=outcome.via,
            shared_with=outcome.shared_with,
            fallbacks=tuple(failed),
        )
        return result, outcome.verdict.passed


def _totalled(spend: Spend, total: Spend) -> Spend:
    """The last link's spend, with what the links of the chain spent and asked together."""
    return replace(
        spend,
        prompt_tokens=total.prompt_tokens,
        completion_tokens=total.completion_tokens,
        cost=total.cost,
        asked=total.asked,
    )


def _add_model_spend(total: Spend, spend: Spend) -> Spend:
    """Tokens, dollars and what models asked to see add up over the links of the chain."""
    return replace(
        total,
        prompt_tokens=total.prompt_tokens + spend.prompt_tokens,
        completion_tokens=total.completion_tokens + spend.completion_tokens,
        cost=total.cost + spend.cost,
        asked=total.asked + spend.asked,
    )
