"""Recording: what a run leaves for healing, gathered while it runs at no cost to passing tests.

The Recorder lives in the process that runs the tests: the heal session itself (session.py), or
each pytest-xdist worker (WorkerRecorder), which hands its record to the controller at the end.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_caretaker import own
from pytest_caretaker.plugin.unselected import Unselected
from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.settings import Settings
from pytest_caretaker.text import where

if TYPE_CHECKING:  # a failure's record is made (and its modules imported) at the first failure
    from pytest_caretaker.results import Failure


def test_code_files(item: pytest.Item) -> set[str]:
    """The files that hold an item's test code: the file it was collected from, where its test
    function is defined (a test method inherited from a mixin elsewhere), and where its class's
    bases are (a TestCase's mixins in a package's __init__.py, say); library files are dropped by
    the caller. A doctest has none: its test is the docstring, and the module it is in is the
    code under test (--doctest-modules collects it as a test file all the same)."""
    if type(item).__name__ == "DoctestItem":
        return set()
    files = {str(item.path)}
    code = getattr(getattr(item, "obj", None), "__code__", None)
    if code is not None:
        files.add(code.co_filename)
    for base in getattr(getattr(item, "cls", None), "__mro__", ()):
        module = sys.modules.get(getattr(base, "__module__", ""))
        filename = getattr(module, "__file__", None)
        if filename:
            files.add(filename)
    return files


class Recorder:
    """What a run leaves for healing: its failures, passing tests and test files.

    It lives in the process that runs the tests: the session itself, or each pytest-xdist
    worker, which hands its record to the controller at the end (see WorkerRecorder).
    """

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.root = Path(config.rootpath).resolve()
        self.failures: dict[str, Failure] = {}
        self.passed: list[str] = []
        self.slowest: float | None = None  # the slowest test that ran here: sets the runs' limit
        self.test_files: set[str] = set()
        self.notes: list[str] = []
        self.unselected = Unselected()  # what the run did not run, which fixes must not break
        config.pluginmanager.register(self.unselected, "caretaker-unselected")
        #: The session's secrets (environment, secret-named locals), kept out of every prompt.
        self.redactor = Redactor.for_project(self.root, os.environ)
        #: The failures of the test being run, recorded once its protocol is over.
        self._pending: dict[str, tuple[pytest.Item, pytest.TestReport, BaseException]] = {}

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for path in {path for item in items for path in test_code_files(item)}:
            rel = project_relpath(path, self.root)
            if rel is not None:
                self.test_files.add(rel)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        # Only what must happen here, in a few steps: a project's pytest-timeout keeps its alarm
        # armed until the test's whole protocol is over, and an alarm that fires in a long step
        # here would end the session (signal method: INTERNALERROR; thread method: os._exit).
        # The failure is recorded after the protocol (pytest_runtest_protocol, below).
        result: pytest.TestReport | None = None
        try:
            result = yield
            self._note(item, call, result)
        except pytest.fail.Exception as alarm:  # another plugin's alarm (its signal handler)
            if result is None:  # raised by the hooks inside this one: not caretaker's to catch
                raise
            _fail(result, alarm)
            self._note(item, None, result, alarm)
        return result

    def _note(
        self,
        item: pytest.Item,
        call: pytest.CallInfo[None] | None,
        result: pytest.TestReport,
        alarm: BaseException | None = None,
    ) -> None:
        error = alarm if call is None or call.excinfo is None else call.excinfo.value
        # Each phase that ran here finished (setup too: a slow fixture): none needs much longer.
        # One a time limit ended says how long the limit was, not how long the test takes.
        if not (result.failed and error is not None and _timed_out(error)):
            self.slowest = max(self.slowest or 0.0, result.duration)
        if result.when == "call" and result.passed:
            self.passed.append(item.nodeid)
        elif result.failed and result.when in ("setup", "call") and error is not None:
            if item.nodeid in self.passed:  # the alarm came after it was counted
                self.passed.remove(item.nodeid)
            self._pending.setdefault(item.nodeid, (item, result, error))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        # tryfirst: the outermost wrapper, so every other plugin's timer around the test (set
        # and cancelled by pytest-timeout's own wrapper of this hook) is off before recording.
        try:
            return (yield)
        finally:
            pending, self._pending = self._pending, {}
            for failed, result, error in pending.values():
                self._record_failure(failed, result, error)

    @own.restoring  # between two tests: a class's or module's patch may still be in place
    def _record_failure(
        self, item: pytest.Item, result: pytest.TestReport, error: BaseException
    ) -> None:
        if item.nodeid in self.failures:
            return
        try:
            from pytest_caretaker.record import failure as failures

            self.failed(item.nodeid, item.session.items)
            self.failures[item.nodeid] = failures.record(
                item.nodeid,
                result.when,
                item.path,
                error,
                result.longreprtext,
                result.capstdout + result.capstderr,
                self.root,
                self.redactor,
            )
        except Exception as error:  # never an INTERNALERROR: the run's outcome stands
            self.notes.append(
                f"caretaker: {item.nodeid} could not be recorded for healing: "
                f"{error!r}{where(error)}; please report it"
            )

    def failed(self, nodeid: str, items: Sequence[pytest.Item] = ()) -> None:
        """Called at the first and every later failure, before it is recorded."""

    def export(self) -> dict[str, Any]:
        """The record as JSON-able data (what a worker sends to the controller)."""
        from pytest_caretaker.record import failure as failures

        return {
            "failures": [failures.to_data(f) for f in self.failures.values()],
            "passed": self.passed,
            "test_files": sorted(self.test_files),
            "deselected": self.unselected.deselected,  # a worker runs part of what it collects
            "secrets": self.redactor.learnt(),
            "notes": self.notes,
            "slowest": self.slowest,
        }

    def absorb(self, data: dict[str, Any]) -> None:
        """Add a worker's record to this one."""
        from pytest_caretaker.record import failure as failures

        for item in data.get("failures", ()):
            failure = failures.from_data(item)
            self.failures.setdefault(failure.nodeid, failure)
        self.passed += data.get("passed", ())
        self.test_files.update(data.get("test_files", ()))
        self.unselected.deselected += data.get("deselected", ())
        for value, what in data.get("secrets", ()):
            self.redactor.remember(value, what)
        self.notes += [n for n in data.get("notes", ()) if n not in self.notes]
        slowest = data.get("slowest")
        if isinstance(slowest, (int, float)):
            self.slowest = max(self.slowest or 0.0, float(slowest))


class WorkerRecorder(Recorder):
    """In a pytest-xdist worker: record, then hand the record to the controller (workeroutput)."""

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[WORKER_OUTPUT] = self.export()


#: The key of a worker's record in pytest-xdist's workeroutput.
WORKER_OUTPUT = "caretaker"


def _fail(report: pytest.TestReport, alarm: BaseException) -> None:
    """The report of a phase an alarm ended inside caretaker's hook: failed, with the alarm's
    message (pytest-timeout's "Timeout (>1.0s) from pytest-timeout.")."""
    said = f"{type(alarm).__name__}: {alarm}"
    before = report.longreprtext.rstrip() if report.failed else ""
    report.outcome = "failed"
    report.longrepr = f"{before}\n{said}".lstrip()


def _timed_out(exception: BaseException) -> bool:
    """Whether pytest-timeout stopped the phase (Failure.timed_out, of a live exception)."""
    from pytest_caretaker.results import TIMEOUT

    return type(exception).__name__ == "Failed" and str(exception).startswith(TIMEOUT)
