"""Per-test time limits in the verification children (worker.py, trial_server.py).

A test that loops forever must cost one test's limit, not the whole run: the run goes on to the
next test, and the one that hung is a failure like any other, with the lines it ran before the
limit (the evidence localization needs). The limit of a test is the smaller of the project's
pytest-timeout setting (its ``timeout`` marker, ``--timeout``, ``PYTEST_TIMEOUT`` or the
``timeout`` ini key) and the limit the parent derived from the run (``derived``: ten times its
slowest test that did not time out, 1 s at least), and never more than a share of the run's (the
rest is left for the tests after it). So a case that hangs costs about what the run's tests
take, not the project's timeout (``timeout = 10`` and nine hanging cases were 90 s of a rerun,
and as much again for every candidate that left them hanging). Where neither is known a test has
no limit of its own: the run's timeout, the last resort, still holds.

The timer is SIGALRM from ``setitimer``: the children are single-threaded, and a signal handler
that raises reaches a loop of Python code as well as ``time.sleep``, a lock or a socket. It raises
TimeLimitExceeded, a BaseException, so a test's ``except Exception`` cannot swallow it; it fires
again every REPEAT seconds until the test ends, and a test it fired in fails even if it caught
it. A hang in C code that never returns to the interpreter is left to the whole run's timeout.
Like worker.py it imports nothing of the parent's side.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

import pytest

from pytest_caretaker.verify.protocol import BUSY, HUNG

#: Signals need the main thread and SIGALRM (POSIX).
AVAILABLE = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
#: The most of a run's limit one test may take: a test that hangs still leaves the run time to
#: report it (and to run the tests after it) before the parent kills the run.
RUN_SHARE = 0.8
#: Seconds between repeated alarms in a test that caught the first one.
REPEAT = 1.0
#: Seconds to the next alarm when one came while the worker's own code ran.
RETRY = 0.001
#: The verification children's own code (the worker's tracer): no place to raise in.
HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
#: A test that waited for a processor (Linux tells: schedstat) for this share of its limit or
#: more was starved by a busy machine (at a load of 6 on two cores a process waits two thirds of
#: the time); on a quiet machine a loop waits next to none, and neither does code that sleeps.
#: Below it, as beside a parallel test suite, a hang is taken for one: run again, every loop
#: would cost four limits.
WAIT_SHARE = 0.5
#: Where Linux does not tell: a test that ran for less CPU time than this share of its limit was
#: starved, or waited (a loop on a quiet machine runs for nearly all of it).
BUSY_SHARE = 0.9
#: A limit derived from the passing tests: FACTOR times the slowest of them, at least FLOOR s.
FACTOR = 10.0
FLOOR = 1.0


def derived(durations: Iterable[float], floor: float = FLOOR) -> float | None:
    """The limit of a test, from the durations of the tests that ran to their end (None: none
    did): ten times the slowest, at least floor."""
    slowest = max(durations, default=None)
    return None if slowest is None else max(floor, FACTOR * slowest)


def hung(seconds: float, ran: float | None = None, waited: float | None = None) -> str:
    """Why a hung test failed: the line its detail carries. ran: the CPU seconds the test had of
    its limit, waited: the seconds it waited for a processor (None: not known); a test starved
    of the processor says so (patience.py runs it again with more time)."""
    if waited is not None:
        if waited >= WAIT_SHARE * seconds:
            return (
                f"{HUNG} {seconds:.3g} s, waiting for a processor {waited:.2g} s of them ({BUSY})"
            )
    elif ran is not None and ran < BUSY_SHARE * seconds:
        return (
            f"{HUNG} {seconds:.3g} s, running for {ran:.2g} s of them ({BUSY}, or the code waits)"
        )
    return f"{HUNG} {seconds:.3g} s (does the code loop forever?)"


class Waits:
    """How long this process's thread has waited for a processor, in seconds (the run queue
    delay Linux keeps in schedstat); None where it is not told. The file is opened once per
    process (a forked child has a thread of its own) and read again in a few microseconds."""

    def __init__(self) -> None:
        self._pid = -1
        self._fd: int | None = None

    def __call__(self) -> float | None:
        if os.getpid() != self._pid:
            self._pid = os.getpid()
            try:
                self._fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
            except OSError:
                self._fd = None
        if self._fd is None:
            return None
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return None


class TimeLimitExceeded(BaseException):
    """Raised inside a test that outlived its limit (not an Exception: tests catch those)."""


@dataclass(frozen=True)
class Limits:
    """test: the limit the parent derived (None: not known); run: the whole run's limit; cap:
    a limit below even the project's (a trial server's, learnt from the tests that passed)."""

    test: float | None
    run: float
    cap: float | None = None
    #: How many times as long as the limits above a run gives each test: more than 1 in a run
    #: again of tests that reached them, which on a busy machine a test that passes can do.
    scale: float = 1.0

    def of(self, item: pytest.Item) -> float | None:
        """Seconds the item may take in each of its setup, call and teardown; None: no limit
        of its own is known, the run's timeout holds."""
        known = [
            s * self.scale for s in (project_limit(item), self.test, self.cap) if s is not None
        ]
        return max(0.001, min(*known, self.run * RUN_SHARE)) if known else None


def project_limit(item: pytest.Item) -> float | None:
    """The project's pytest-timeout setting for item (its marker first); None or 0: none."""
    marker = item.get_closest_marker("timeout")
    value: object = None
    if marker is not None:
        value = marker.kwargs.get("timeout", marker.args[0] if marker.args else None)
    if value is None:
        value = configured(item.config)
    return _seconds(value)


def _seconds(value: object) -> float | None:
    """A positive number of seconds, or None (pytest-timeout reports a bad value itself)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds > 0 else None


def configured(config: pytest.Config) -> object:
    """pytest-timeout's session-wide timeout, in its own order: option, environment, ini."""
    if not config.pluginmanager.hasplugin("timeout"):
        return None  # without the plugin there is no such option or key
    value: object = config.getoption("timeout", None)
    if value is None:
        value = os.environ.get("PYTEST_TIMEOUT")
    if value is None:
        value = config.getini("timeout")
    return value


class Timer:
    """One alarm at a time; after a timed phase, expired is its limit if the alarm fired."""

    def __init__(self) -> None:
        self.expired: float | None = None
        self.said = ""  # why the phase failed, when the alarm fired (hung)
        self._armed: float | None = None
        self._started = 0.0  # the process's CPU time when the alarm was armed
        self._waits = Waits()
        self._waited: float | None = None  # and how long it had waited for a processor

    @contextmanager
    def limit(self, seconds: float | None) -> Iterator[None]:
        self.expired = None
        main = threading.current_thread() is threading.main_thread()
        if seconds is None or not AVAILABLE or not main:
            yield  # the whole run's timeout still holds
            return
        previous = signal.signal(signal.SIGALRM, self._alarm)
        self._armed = seconds
        self._started = time.process_time()
        self._waited = self._waits()
        signal.setitimer(signal.ITIMER_REAL, seconds, min(seconds, REPEAT))
        try:
            yield
        finally:
            # Disarmed first: an alarm already pending is then ignored, not raised in pytest.
            self._armed = None
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def _alarm(self, signum: int, frame: FrameType | None) -> None:
        __tracebackhide__ = True  # the traceback ends in the code that was running
        seconds = self._armed
        if seconds is None:
            return
        if frame is not None and frame.f_code.co_filename.startswith(HERE):
            # In the worker's tracer: raised there, the exception would end the trace (Python
            # unsets a trace function that raises) and point at the tracer. Come back shortly.
            signal.setitimer(signal.ITIMER_REAL, RETRY, min(seconds, REPEAT))
            return
        if self.expired is None:  # the first alarm says how much of its limit the test ran
            waits, before = self._waits(), self._waited
            waited = None if waits is None or before is None else waits - before
            self.said = hung(seconds, time.process_time() - self._started, waited)
        self.expired = seconds
        raise TimeLimitExceeded(self.said)


class TimeLimits:
    """The pytest plugin that gives each test its limit, registered next to the worker's own.

    Its wrappers are the innermost (trylast), inside the worker's tracer: the lines a test ran
    before its limit are kept like any other test's. A phase the alarm fired in reports failed,
    its detail ending with why.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.timer = Timer()

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        with self.timer.limit(self.limits.of(item)):
            return (yield)

    pytest_runtest_call = pytest_runtest_setup
    pytest_runtest_teardown = pytest_runtest_setup

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report: pytest.TestReport = yield
        seconds, self.timer.expired = self.timer.expired, None
        if seconds is not None:
            # Caught by the test or not, a phase that outlived its limit does not pass.
            before = report.longreprtext.rstrip() if report.failed else ""
            said = self.timer.said
            report.outcome = "failed"
            report.longrepr = before if said in before else f"{before}\n{said}".lstrip()
        return report

    # pytest-timeout's own timer would take SIGALRM from this one (or, by thread, end the whole
    # run with os._exit): its settings are read above, its timer is never set.
    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_timeout_set_timer(self) -> bool:
        return True

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_timeout_cancel_timer(self) -> bool:
        return True
