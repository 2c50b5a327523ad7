"""Cluster: failures with one root cause are one problem, repaired once.

The root cause is the exception type and the innermost frame in code under test, or, for an
assertion in the test itself, the code function localization ranks first. The engine repairs a
cluster as one problem: the check that proves the fix for its first case runs the others too, the
ones that pass are healed by that fix, and only the rest become the next problem. A problem that is
not healed is not healed for every case of it: one conversation, not one per failing test.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace

from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.problem import Problem
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.localize import localize
from pytest_caretaker.repair.chain import Chain
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import Failure, HealResult, Spend
from pytest_caretaker.verify.runner import RunResult


def clusters(
    failures: Sequence[Failure], cause: Callable[[Failure], Hashable | None]
) -> list[list[Failure]]:
    """The failures grouped by root cause, in order of each group's first failure; a failure
    without a known cause is a group of its own."""
    groups: dict[Hashable, list[Failure]] = {}
    for failure in failures:
        groups.setdefault(cause(failure) or ("alone", failure.nodeid), []).append(failure)
    return list(groups.values())


def grouped(
    failures: Sequence[Failure],
    followers: Mapping[str, str],
    cause: Callable[[Failure], Hashable | None],
) -> list[list[Failure]]:
    """clusters(), where a case that follows another (regression.alike: it failed like the first
    cases of its test function and was not rerun alone) takes that case's cause, found once."""
    by_id = {failure.nodeid: failure for failure in failures}
    found: dict[str, Hashable] = {}

    def of(failure: Failure) -> Hashable:
        first = by_id.get(followers.get(failure.nodeid, ""), failure)
        if first.nodeid not in found:
            found[first.nodeid] = cause(first) or ("alone", first.nodeid)
        return found[first.nodeid]

    return clusters(failures, of)


def root_cause(
    failure: Failure,
    baseline: RunResult,
    regression: Sequence[str],
    files: ProjectFiles,
    editable: Editable,
) -> tuple[str, str] | None:
    """What failures with one bug share: the exception type and the innermost frame in code
    under test, or (an assertion in the test) the function localization ranks first."""
    outcome = baseline.outcomes.get(failure.nodeid)
    if outcome is None or outcome.outcome == "passed":
        return None
    inner = failure.innermost
    if inner is not None and inner.path not in editable.tests:
        # Where a case that hung was when its limit came is chance: its loop's function counts.
        where = inner.name if failure.timed_out else inner.lineno
        return failure.exc_type, f"{inner.path}:{where}"
    # Not by the tests' names: tests of one bug are often named for different things.
    suspects = localize(
        failure, [failure.nodeid], baseline.executed, regression, files, editable.tests, False
    )
    top = next((s for s in suspects if not s.is_test and editable.path(s.path)), None)
    return (failure.exc_type, top.ref) if top is not None else None


def solve(
    problem: Problem,
    baseline: RunResult,
    chain: Chain,
    transcripts: dict[str, Transcript],
) -> tuple[list[HealResult], list[Failure]]:
    """The results of one problem's repair, and the cases its fix does not heal."""
    lead, rest = problem.lead, list(problem.cases[1:])
    outcome = baseline.outcomes.get(lead.nodeid)
    if outcome is not None and outcome.outcome == "passed":
        transcripts[lead.nodeid] = Transcript(lead.nodeid)
        reason = "the test passes when rerun alone (flaky or order-dependent)"
        return [HealResult(lead.nodeid, reason=reason)], rest
    if outcome is None and baseline.collect_errors:  # nothing it ran is known: nothing to say
        transcripts[lead.nodeid] = Transcript(lead.nodeid)
        result = HealResult(lead.nodeid, reason=not_collected(baseline.collect_errors[0]))
        return [result, *(_unhealed(result, case, transcripts) for case in rest)], []
    suspects = localize(  # the spectrum over all the cases of the problem
        lead,
        list(problem.ids),
        baseline.executed,
        problem.regression,
        chain.files,
        chain.editable.tests,
    )
    repaired = chain.repair(problem, suspects)
    transcripts[lead.nodeid] = repaired.log
    if not repaired.result.healed:
        # The repair was about every case of the problem (its check ran them all): asking again
        # for each of the others would spend --heal-attempts requests per failing test.
        return [repaired.result, *(_unhealed(repaired.result, c, transcripts) for c in rest)], []
    healed = [case for case in rest if case.nodeid in repaired.passed]
    shared = [_shared(repaired.result, case, chain, transcripts) for case in healed]
    return [repaired.result, *shared], [case for case in rest if case not in healed]


def not_collected(error: str) -> str:
    """Why a failing test that caretaker's rerun could not collect is not repaired: the error
    (its ``E`` line), and where a read was refused, the way to let the tests read."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    said = [line[1:].strip() for line in lines if line.startswith("E ")] or lines[-1:] or ["?"]
    reason = (
        "the failing test could not be rerun: collecting it failed in caretaker's process"
        f" ({said[-1]})"
    )
    if "PermissionError" in said[-1]:
        reason += (
            "; if the sandbox refuses a read the tests need, --heal-sandbox off runs them"
            " unconfined"
        )
    return reason


def _unhealed(result: HealResult, case: Failure, transcripts: dict[str, Transcript]) -> HealResult:
    """The result of a case whose problem was repaired, for all of its cases, and not healed."""
    log = transcripts[case.nodeid] = Transcript(case.nodeid)
    log.add("One root cause", f"repaired once with {result.nodeid}, for all of its tests")
    reason = f"{result.reason} (one root cause with {result.nodeid}, repaired once for all)"
    return HealResult(case.nodeid, reason=reason, repairer=result.repairer)


def _shared(
    result: HealResult, case: Failure, chain: Chain, transcripts: dict[str, Transcript]
) -> HealResult:
    """The result of a case that the fix found for another case of its problem heals too: the
    check that proved the fix ran it, so it costs nothing more."""
    log = transcripts[case.nodeid] = Transcript(case.nodeid)
    log.add(
        "One root cause",
        f"healed by the fix found for {result.nodeid}, verified for this test too",
    )
    if not result.unsure:  # as the chain does for its lead: a replay would say plain HEALED
        chain.memory.remember(case, result.edits, result.explanation, result.repairer, chain.files)
    return replace(
        result,
        nodeid=case.nodeid,
        spend=Spend(),
        via="shared",
        shared_with=result.nodeid,
        fallbacks=(),  # told once, on the case whose repair found the fix
    )
