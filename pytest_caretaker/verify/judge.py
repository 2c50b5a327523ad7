"""Judge a run: a candidate is accepted only if every failing test passes and every regression
test still passes; the verdict names the first test that says otherwise, with its evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pytest_caretaker.results import Verdict
from pytest_caretaker.verify.protocol import HUNG
from pytest_caretaker.verify.runner import RunResult


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def judge(result: RunResult, failing: Sequence[str], regression: Sequence[str]) -> Verdict:
    """Accept only if every failing test passes and every regression test still passes."""
    passed = frozenset(k for k, outcome in result.outcomes.items() if outcome.outcome == "passed")
    return replace(_judge(result, failing, regression), passed=passed, seconds=result.seconds)


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
            how = "still hangs" if HUNG in outcome.detail else "still fails"
            return Verdict(False, f"{nodeid} {how}", outcome.detail)
    for nodeid in regression:
        outcome = result.outcomes.get(nodeid)
        if outcome is None:
            return Verdict(False, f"fix broke {nodeid} (it did not run)", "")
        if outcome.outcome != "passed":
            now = " (it hangs now)" if HUNG in outcome.detail else ""
            return Verdict(False, f"fix broke {nodeid}{now}", outcome.detail)
    return Verdict(True)
