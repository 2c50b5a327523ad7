"""Cluster: failures with one root cause are repaired once.

The root cause is the exception type and the innermost frame in code under test, or, for an
assertion in the test itself, the code function localization ranks first. The fix found for the
first failure of a cluster is run once against the others (share); the ones it heals are reported
as healed by it, and only the rest get a repair of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace

from pytest_caretaker.project.localize import localize
from pytest_caretaker.repair.chain import Repairer
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import Failure, HealResult
from pytest_caretaker.verify.runner import RunResult, judge


def clusters(
    failures: Sequence[Failure], cause: Callable[[Failure], Hashable | None]
) -> list[list[Failure]]:
    """The failures grouped by root cause, in order of each group's first failure; a failure
    without a known cause is a group of its own."""
    groups: dict[Hashable, list[Failure]] = {}
    for failure in failures:
        groups.setdefault(cause(failure) or ("alone", failure.nodeid), []).append(failure)
    return list(groups.values())


def root_cause(
    repairer: Repairer, failure: Failure, baseline: RunResult, regression: Sequence[str]
) -> tuple[str, str] | None:
    """What failures with one bug share: the exception type and the innermost frame in code
    under test, or (an assertion in the test) the function localization ranks first."""
    outcome = baseline.outcomes.get(failure.nodeid)
    if outcome is None or outcome.outcome == "passed":
        return None
    inner = failure.innermost
    if inner is not None and inner.path not in repairer.tests:
        return failure.exc_type, f"{inner.path}:{inner.lineno}"
    candidates = localize(
        failure, [failure.nodeid], baseline.executed, regression, repairer.sources, repairer.tests
    )
    top = next((c for c in candidates if not c.is_test and repairer.editable(c)), None)
    return (failure.exc_type, top.ref) if top is not None else None


def share(
    repairer: Repairer, result: HealResult, others: Sequence[Failure], regression: Sequence[str]
) -> tuple[list[HealResult], list[Failure]]:
    """The results of the others that result's fix heals too (one run of them all and their
    neighbours), and the others it does not heal, which need a repair of their own."""
    if not result.healed or not others:
        return [], list(others)
    patches = {applied.path: applied.after for applied in result.applied}
    run = repairer.runner.run([*(f.nodeid for f in others), *regression], patches)
    if not judge(run, [], regression).ok:
        return [], list(others)
    healed: list[HealResult] = []
    rest: list[Failure] = []
    for other in others:
        outcome = run.outcomes.get(other.nodeid)
        if outcome is None or outcome.outcome != "passed":
            rest.append(other)
            continue
        log = repairer.transcripts[other.nodeid] = Transcript(other.nodeid)
        log.add(
            "One root cause",
            f"healed by the fix found for {result.nodeid}, verified for this test too",
        )
        repairer.memory.remember(
            other, result.edits, result.explanation, result.model, repairer.sources
        )
        healed.append(
            replace(
                result,
                nodeid=other.nodeid,
                attempts=0,
                prompt_tokens=0,
                completion_tokens=0,
                cost=0.0,
                seconds=run.seconds,
                from_cache=False,
                shared_with=result.nodeid,
                fallbacks=(),  # told once, on the test whose repair found the fix
            )
        )
    return healed, rest
