"""`pytest --heal` of a bug that makes a test loop forever: healable like any other.

The project uses pytest-timeout (as a project whose tests can hang does: without it the user's own
run would never end). Caretaker's reruns give each test that limit, so the test that hangs costs
its limit, not the whole run's --heal-timeout (60 s by default, 300 s here so that the two are
far apart), and is localized by the lines it ran.
"""

from __future__ import annotations

import re
import time

import pytest
from helpers import heal_args

from pytest_caretaker.testing import ScriptedServer, tool_call

STEPS = """\
def steps_to(n):
    \"\"\"How many steps of two it takes from 0 to reach n or pass it.\"\"\"
    i = 0
    steps = 0
    while i != n:
        i += 2
        steps += 1
    return steps
"""
TESTS = """\
from steps import steps_to


def test_odd_target():
    assert steps_to(3) == 2


def test_even_target():
    assert steps_to(4) == 2


def test_zero():
    assert steps_to(0) == 0
"""
# Without pytest-timeout (a test extra) the user's own run of this project would never end.
pytest.importorskip("pytest_timeout", reason="pytest-timeout is not installed")

FIXED = STEPS.replace("while i != n:", "while i < n:")
STILL_HANGS = STEPS.replace("steps += 1", "steps += 2")
#: What one verification run may take: a hang that no test's limit cut short would cost it.
HEAL_TIMEOUT = 300
#: Half of that: far below what one hang left to the run's limit costs, and over ten times what
#: the heal takes on a quiet machine (it took 11-16 s here at a load of 10 on two cores).
WALL = HEAL_TIMEOUT / 2


@pytest.fixture
def hangs(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\ntimeout = 1\n")  # pytest-timeout's setting, seconds
    pytester.makepyfile(steps=STEPS, test_steps=TESTS)
    return pytester


def still_hangs_then_fixed(llm: ScriptedServer) -> None:
    """The model's replies: a fix under which the test still hangs, then the fix."""
    llm.script(
        tool_call(
            "Count two per step.",
            [{"path": "steps.py", "function": "steps_to", "code": STILL_HANGS}],
        ),
        tool_call(
            "The loop skips past odd n.",
            [{"path": "steps.py", "function": "steps_to", "code": FIXED}],
        ),
    )


def test_a_hanging_bug_is_healed_by_the_model(hangs: pytest.Pytester, llm: ScriptedServer) -> None:
    # First a fix under which the test still hangs: rejected within the test's own limit.
    still_hangs_then_fixed(llm)
    started = time.monotonic()

    result = hangs.runpytest(
        *heal_args(llm, "openai/gpt-4o-mini", "--heal-timeout", str(HEAL_TIMEOUT))
    )

    elapsed = time.monotonic() - started
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "HEALED test_steps.py::test_odd_target",
            "  patched steps.py::steps_to",
            "  -    while i != n:",
            "  +    while i < n:",
            "  2 attempts · *",
            "caretaker: 1 healed, 0 not healed*",
        ]
    )
    retry = llm.requests[1]["messages"][-1]["content"]
    assert "test_steps.py::test_odd_target still hangs" in retry
    # The loop ran for all of its 1 s; on a busy machine it ran for less, and was run again with
    # three times the limit (patience.py) before it was refused.
    assert "the test did not finish within 1 s (does the code loop forever?)" in retry or (
        "the test did not finish within 3 s" in retry
        and "it timed out on this machine, and again with 3 times its limit" in retry
    ), retry
    assert elapsed < WALL, f"{elapsed:.1f} s"


@pytest.mark.parametrize("workers", [None, "2"], ids=["serial", "xdist"])
def test_a_case_that_hangs_costs_what_the_runs_tests_take_not_the_projects_timeout(
    pytester: pytest.Pytester, llm: ScriptedServer, workers: str | None
) -> None:
    # A project's timeout is set for its slowest test (often minutes). The user's run has paid
    # it for the hanging case; caretaker's rerun and every candidate under which the case still
    # hangs pay ten times the slowest test that ended by itself, 1 s at least (the test that
    # timed out says how long the limit was, not how long a test takes). Under xdist the
    # workers tell the durations they saw.
    pytester.makeini("[pytest]\ntimeout = 3\n")
    pytester.makepyfile(steps=STEPS, test_steps=TESTS)
    still_hangs_then_fixed(llm)

    args = heal_args(llm, "openai/gpt-4o-mini", "--heal-timeout", "60")
    if workers is None:
        result = pytester.runpytest(*args)
    else:
        result = pytester.runpytest_subprocess("-n", workers, *args, timeout=120)

    result.stdout.fnmatch_lines(
        ["*Timeout (>3.0s) from pytest-timeout*", "HEALED test_steps.py::test_odd_target"]
    )
    retry = llm.requests[1]["messages"][-1]["content"]
    # 1 s here; more only where a loaded machine made a passing test's phase take over 0.1 s.
    said = re.search(r"the test did not finish within ([\d.]+) s", retry)
    assert said is not None, retry
    again = "timed out on this machine, and again with 3 times its limit" in retry  # busy here
    assert float(said.group(1)) / (3 if again else 1) < 3.0


def test_a_hanging_bug_is_healed_by_the_builtin_repairer(hangs: pytest.Pytester) -> None:
    started = time.monotonic()

    # The repairer's budget (20 s by default) is a clock too: on a loaded machine it ran out after
    # 2 of 51 candidates. This test is about hangs, not the budget: it gets what the run may take.
    result = hangs.runpytest(
        "--heal", "--heal-timeout", str(HEAL_TIMEOUT), "--heal-builtin-budget", str(WALL)
    )

    elapsed = time.monotonic() - started
    result.stdout.fnmatch_lines(
        [
            "HEALED test_steps.py::test_odd_target",
            "  patched steps.py::steps_to",
            "  -    while i != n:",
            "  +    while i < n:",
            "caretaker: 1 healed, 0 not healed*",
        ]
    )
    assert elapsed < WALL, f"{elapsed:.1f} s"


def test_the_hanging_test_fails_in_the_users_run_by_pytest_timeout(hangs: pytest.Pytester) -> None:
    """The premise: the user's run ends because of pytest-timeout, not caretaker."""
    result = hangs.runpytest("-p", "no:caretaker")

    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*Timeout (>1.0s) from pytest-timeout*"])
