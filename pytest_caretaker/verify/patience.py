"""Load-proof verdicts: a test that a time limit stopped on a busy machine is run once more,
with more time.

A test's limit (timer.py) is ten times the slowest passing test, or the project's own
pytest-timeout setting. On a busy machine a test that passes can reach it all the same (0.8 s of
a 1 s limit on a quiet machine is more than 1 s beside two busy processes), and such a stop is
no evidence that a fix fails. A test that reached its limit having run for much less CPU time
than the limit (BUSY in its detail) did not have the machine to itself, or waited; a loop on a
quiet machine runs for nearly all of it, and is not run again. So each test that should pass (a
fix's cases and regression set, the tests that passed before) and was stopped so is run again,
alone, with every limit RAISE times as long, up to the user's --heal-timeout. What it does then
is its outcome, and the run says it ran it again (RunResult.again): passing then, the fix passes
it, and its verdict says it needed more time on this machine; stopped again, it timed out on
this machine, which the verdict says instead of "still fails".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from pytest_caretaker.verify.protocol import BUSY, HUNG, RAISE
from pytest_caretaker.verify.runner import Runner, RunResult

#: How a run's problem begins when the whole run did not finish in its time (channel.py).
RUN_HUNG = "the tests did not finish within"


def stopped(result: RunResult, nodeids: Collection[str]) -> list[str]:
    """Those of nodeids that their time limit stopped in result while they ran for much less."""
    return [
        nodeid
        for nodeid in nodeids
        if (outcome := result.outcomes.get(nodeid)) is not None
        and outcome.outcome != "passed"
        and HUNG in outcome.detail
        and BUSY in outcome.detail
    ]


def patient_run(
    runner: Runner,
    nodeids: Sequence[str],
    patches: Mapping[str, bytes] | None = None,
    *,
    expected: Collection[str] | None = None,
    trace: bool = False,
    timeout: float | None = None,
    slow: bool = False,
) -> RunResult:
    """runner.run(nodeids, patches), then each test of expected (those that should pass; all
    of nodeids by default) that its limit stopped, run again with RAISE times the time. slow:
    the tests needed more time in an earlier run (RunResult.again), and get it from the start."""
    if slow:
        run = runner.run(nodeids, patches, trace=trace, timeout=timeout, scale=RAISE)
        return replace(run, again=frozenset(nodeids))
    first = runner.run(nodeids, patches, trace=trace, timeout=timeout)
    wanted = set(nodeids) if expected is None else set(expected)
    if first.problem is not None:
        # The whole run stopped: run again with more time only where there is more to give.
        raised = timeout is not None and timeout < runner.timeout
        if not (raised and first.problem.startswith(RUN_HUNG) and wanted & set(nodeids)):
            return first
        second = runner.run(nodeids, patches, trace=trace, timeout=timeout, scale=RAISE)
        return replace(second, again=frozenset(nodeids), seconds=first.seconds + second.seconds)
    retry = stopped(first, [nodeid for nodeid in nodeids if nodeid in wanted])
    if not retry:
        return first
    second = runner.run(retry, patches, trace=trace, timeout=timeout, scale=RAISE)
    seconds = first.seconds + second.seconds
    if second.problem is not None:  # the run again failed as a whole: the first run stands
        return replace(first, again=frozenset(retry), seconds=seconds)
    return replace(
        first,
        outcomes={**first.outcomes, **second.outcomes},
        executed={**first.executed, **second.executed},
        again=frozenset(retry),
        seconds=seconds,
    )
