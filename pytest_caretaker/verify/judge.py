"""Judge a run: a candidate is accepted only if every failing test passes and every regression
test still passes; the verdict names the first test that says otherwise, with its evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pytest_caretaker.results import Verdict
from pytest_caretaker.verify.protocol import HUNG, RAISE
from pytest_caretaker.verify.runner import RunResult


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def judge(result: RunResult, failing: Sequence[str], regression: Sequence[str]) -> Verdict:
    """Accept only if every failing test passes and every regression test still passes."""
    passed = frozenset(k for k, outcome in result.outcomes.items() if outcome.outcome == "passed")
    verdict = replace(_judge(result, failing, regression), passed=passed, seconds=result.seconds)
    slow = [nodeid for nodeid in (*failing, *regression) if nodeid in result.again & passed]
    if verdict.ok and slow:  # the reader of the fix must know it passed only with more time
        notes = tuple(
            f"passes {nodeid} only with more time: the test reached its time limit on this "
            f"machine, and passed when run again with {RAISE:g} times the limit"
            for nodeid in slow
        )
        verdict = replace(verdict, notes=notes)
    return verdict


def _again(result: RunResult, nodeid: str) -> str:
    """What the reason of a test its time limit stopped adds when it was stopped again with
    more time (patience.py): it is not known to loop, only to take too long here."""
    if nodeid not in result.again:
        return ""
    return f": it timed out on this machine, and again with {RAISE:g} times its limit"


def _judge(result: RunResult, failing: Sequence[str], regression: Sequence[str]) -> Verdict:
    if result.problem is not None:
        return Verdict(False, result.problem, result.output[-2_000:])
    if result.collect_errors:
        detail = result.collect_errors[0]
        return Verdict(False, f"collecting the tests failed: {_first_line(detail)}", detail)
    for nodeid in failing:
        outcome = result.outcomes.get(nodeid)
        if outcome is None:
            return Verdict(False, f"{nodeid} did not run", result.output[-2_000:])
        if outcome.outcome == "skipped":  # a skip is no pass, and it brings no report
            why = f"{nodeid} is skipped under the fix, and a skip is no pass"
            return Verdict(False, why, outcome.detail)
        if outcome.outcome != "passed":
            hung = HUNG in outcome.detail
            how = f"still hangs{_again(result, nodeid)}" if hung else "still fails"
            return Verdict(False, f"{nodeid} {how}", outcome.detail)
    for nodeid in regression:
        outcome = result.outcomes.get(nodeid)
        if outcome is None:
            return Verdict(False, f"fix broke {nodeid} (it did not run)", "")
        if outcome.outcome != "passed":
            now = f" (it hangs now{_again(result, nodeid)})" if HUNG in outcome.detail else ""
            return Verdict(False, f"fix broke {nodeid}{now}", outcome.detail)
    return Verdict(True)
