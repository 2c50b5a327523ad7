"""A project's own pytest-timeout never turns caretaker's recording into an INTERNALERROR.

pytest-timeout arms its alarm around the whole test protocol, report hooks included. Caretaker
records a failure (the frames' locals, redacted) only once that protocol is over and the alarm
is off: a test that fails just under its limit, with locals that take long to show, ends in
pytest's summary and is healed, by the signal method (which raises where the code is) and by the
thread method (which ends the process). An alarm that does fire inside caretaker's report hook
(played here by raising pytest-timeout's own exception there) fails that test as the timeout it
is, and the session goes on.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pytest_timeout", reason="pytest-timeout is not installed")

CALC = """\
def add(a, b):
    return a - b
"""
# The local's repr takes longer than the test's whole limit: shown while the alarm is armed, it
# would be cut short by it.
TESTS = """\
import time

from calc import add


class Costly:
    def __repr__(self):
        time.sleep(2)
        return "Costly()"


def test_add():
    costly = Costly()
    assert add(2, 3) == 5


def test_add_zero():
    assert add(2, 0) == 2
"""


@pytest.mark.parametrize("method", ["signal", "thread"])
def test_a_failure_near_its_limit_is_recorded_after_the_alarm(
    pytester: pytest.Pytester, method: str
) -> None:
    pytester.makeini(f"[pytest]\ntimeout = 1\ntimeout_method = {method}\n")
    pytester.makepyfile(calc=CALC, test_calc=TESTS)

    result = pytester.runpytest_subprocess("--heal", "-p", "no:cacheprovider")

    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert "Timeout" not in output  # the test itself ended well within its limit
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["HEALED *test_calc.py::test_add*", "*caretaker: 1 healed*"])


# Played where it can land: pytest-timeout's signal handler raises pytest.fail("Timeout (>…s)")
# wherever the code is when the alarm fires; here, as caretaker's report hook resumes.
ALARM_IN_HOOK = """\
import signal
import sys

import pytest


def _alarm(signum, frame):
    pytest.fail("Timeout (>1.0s) from pytest-timeout.")


def _line(frame, event, arg):
    # The first line caretaker's wrapper runs with the test's report in hand.
    if event == "line" and frame.f_locals.get("result") is not None:
        sys.settrace(None)
        signal.raise_signal(signal.SIGALRM)
    return _line


def _tracer(frame, event, arg):
    code = frame.f_code
    if code.co_name == "pytest_runtest_makereport" and "pytest_caretaker" in code.co_filename:
        return _line
    return None


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    if call.when != "call" or "late" not in item.name:
        return (yield)
    previous = signal.signal(signal.SIGALRM, _alarm)
    sys.settrace(_tracer)
    try:
        return (yield)
    finally:
        sys.settrace(None)
        signal.signal(signal.SIGALRM, previous)
"""


def test_an_alarm_inside_the_report_hook_fails_the_test_as_a_timeout(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(ALARM_IN_HOOK)
    pytester.makepyfile(
        calc=CALC,
        test_calc="from calc import add\n\n\ndef test_late():\n    assert add(2, 0) == 2\n",
    )

    result = pytester.runpytest_subprocess("--heal", "-p", "no:cacheprovider")

    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*Timeout (>1.0s) from pytest-timeout.*"])
    result.stdout.fnmatch_lines(["*caretaker: 0 healed, 1 not healed*"])
