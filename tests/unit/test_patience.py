"""Load-proof verdicts (verify/patience.py, timer.py, judge.py): which stops are run again, and how
a verdict says a test that a time limit stopped, or that passed only with more time."""

from __future__ import annotations

from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.patience import stopped
from pytest_caretaker.verify.protocol import BUSY, HUNG
from pytest_caretaker.verify.runner import Outcome, RunResult
from pytest_caretaker.verify.timer import BUSY_SHARE, WAIT_SHARE, Waits, hung

LOOPED = hung(1.0, 0.98, 0.01)  # ran for all of its limit: a loop on a quiet machine
STARVED = hung(1.0, 0.3, 0.7)  # waited for a processor most of it: a busy machine
SLEPT = hung(1.0, 0.01, 0.0)  # neither ran nor waited for a processor: the code waits


def test_a_test_that_ran_or_slept_through_its_limit_is_said_to_loop() -> None:
    assert LOOPED == SLEPT == f"{HUNG} 1 s (does the code loop forever?)"
    assert hung(1.0) == LOOPED  # nothing known of its time


def test_a_test_that_waited_for_a_processor_says_the_machine_was_busy() -> None:
    assert f"{HUNG} 1 s, waiting for a processor 0.7 s of them ({BUSY})" == STARVED
    assert BUSY in hung(2.0, 1.0, 2.0 * WAIT_SHARE)
    assert BUSY not in hung(2.0, 1.0, 2.0 * WAIT_SHARE - 0.01)


def test_where_linux_does_not_tell_little_cpu_time_is_taken_for_a_busy_machine() -> None:
    said = hung(1.0, 0.2)
    assert said == f"{HUNG} 1 s, running for 0.2 s of them ({BUSY}, or the code waits)"
    assert BUSY not in hung(2.0, 2.0 * BUSY_SHARE)


def test_the_wait_is_read_from_linux_where_it_tells() -> None:
    import os
    import time

    waits = Waits()
    before = waits()
    if not os.path.exists("/proc/thread-self/schedstat"):
        assert before is None
        return
    started = time.process_time()
    while time.process_time() - started < 0.05:
        pass
    after = waits()
    assert before is not None and after is not None and after >= before


def test_only_tests_stopped_while_starved_are_run_again() -> None:
    run = RunResult(
        {
            "t::looped": Outcome("failed", f"E  TimeLimitExceeded\n{LOOPED}"),
            "t::slept": Outcome("failed", f"E  TimeLimitExceeded\n{SLEPT}"),
            "t::starved": Outcome("failed", f"E  TimeLimitExceeded\n{STARVED}"),
            "t::wrong": Outcome("failed", "assert 1 == 2"),
            "t::fine": Outcome("passed"),
        },
        {},
    )

    assert stopped(run, list(run.outcomes)) == ["t::starved"]
    assert stopped(run, ["t::looped", "t::wrong"]) == []


def test_a_case_stopped_again_with_more_time_timed_out_on_this_machine() -> None:
    outcomes = {"t::lead": Outcome("failed", STARVED)}

    first = judge(RunResult(outcomes, {}), ["t::lead"], [])
    again = judge(RunResult(outcomes, {}, again=frozenset({"t::lead"})), ["t::lead"], [])

    assert first.reason == "t::lead still hangs"
    assert again.reason == (
        "t::lead still hangs: it timed out on this machine, and again with 3 times its limit"
    )


def test_a_neighbour_stopped_again_is_no_plain_breakage() -> None:
    outcomes = {"t::lead": Outcome("passed"), "t::other": Outcome("failed", STARVED)}

    verdict = judge(
        RunResult(outcomes, {}, again=frozenset({"t::other"})), ["t::lead"], ["t::other"]
    )

    assert verdict.reason == (
        "fix broke t::other (it hangs now: it timed out on this machine, "
        "and again with 3 times its limit)"
    )


def test_a_fix_that_passed_only_with_more_time_says_so() -> None:
    outcomes = {"t::lead": Outcome("passed"), "t::other": Outcome("passed")}

    verdict = judge(
        RunResult(outcomes, {}, again=frozenset({"t::lead"})), ["t::lead"], ["t::other"]
    )

    assert verdict.ok
    assert verdict.notes == (
        "passes t::lead only with more time: the test reached its time limit on this machine, "
        "and passed when run again with 3 times the limit",
    )
    assert judge(RunResult(outcomes, {}), ["t::lead"], ["t::other"]).notes == ()
