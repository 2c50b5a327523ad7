"""A test its time limit stopped while it waited for a processor is run again with more time.

On a busy machine a test that passes can reach its limit (ten times the slowest passing test, 1 s
at least, or the project's pytest-timeout): such a stop is no evidence that a fix fails. The child
tells those stops from a loop by the time the test waited for a processor (Linux's schedstat). A
loaded machine is made here, the same on any machine: the first run of the fixed code pins its
test to one processor at the lowest priority beside two busy processes there, as a process of a
loaded CI runner is starved. Its proof stops it, runs it again with three times the limit, and
it passes: HEALED, saying it passed only with more time.
"""

from __future__ import annotations

import sys

import pytest
from helpers import heal_args

from pytest_caretaker.testing import ScriptedServer, tool_call

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="needs Linux's schedstat and sched_setaffinity"
)

PRICES = """\
def total(prices):
    return sum(prices[1:])


def count(prices):
    return len(prices)
"""
TESTS = """\
import os
import pathlib
import subprocess
import sys

from prices import count, total

ONCE = pathlib.Path(__file__).with_name("starved-once")
SPIN = "import time\\nt = time.time()\\nwhile time.time() - t < 3:\\n    pass\\n"


def starve():
    # Two busy processes on this test's one processor, and this test below them: it waits.
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    for _ in range(2):
        subprocess.Popen([sys.executable, "-c", SPIN])
    os.nice(19)
    sum(i * i for i in range(3_000_000))


def test_total():
    if total([1]) == 1 and not ONCE.exists():  # the fixed code's first run
        ONCE.write_text("")
        starve()
    assert total([1, 2, 3]) == 6


def test_count():
    assert count([1, 2]) == 2
"""
FIXED = "def total(prices):\n    return sum(prices)\n"


def test_a_fix_whose_test_was_starved_of_the_processor_is_proved_and_says_so(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(prices=PRICES, test_prices=TESTS)
    llm.script(
        tool_call("Sum every price.", [{"path": "prices.py", "function": "total", "code": FIXED}])
    )

    # Unsandboxed: the test leaves a file in the project to starve only its first run.
    args = heal_args(llm, "openai/gpt-4o-mini", "--heal-sandbox", "off", "--heal-timeout", "60")
    result = pytester.runpytest(*args)

    result.assert_outcomes(passed=1, failed=1)
    assert (pytester.path / "starved-once").exists()  # the fix's first run was starved
    result.stdout.fnmatch_lines(
        [
            "HEALED test_prices.py::test_total",
            "*the fix passes test_prices.py::test_total only with more time: the test reached "
            "its time limit on this machine, and passed when run again with 3 times the limit",
            "caretaker: 1 healed, 0 not healed*",
        ]
    )
    assert len(llm.requests) == 1
