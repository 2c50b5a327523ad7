"""The session object registered when healing is on: hooks of a few lines that call plain modules.

Recording happens during the run and costs nothing for passing tests; all repair work happens
after the run, in pytest_sessionfinish, and its outcome is printed in the terminal summary.
Healing never changes the exit status: the run tested the code as it was.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_caretaker import overlap, review
from pytest_caretaker.ci.session_end import SessionEnd
from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.record import failure as failures
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.report import summary
from pytest_caretaker.results import Failure
from pytest_caretaker.settings import Settings
from pytest_caretaker.text import where
from pytest_caretaker.unselected import Unselected, whole_files
from pytest_caretaker.verify.runner import Confinement, Runner

if TYPE_CHECKING:  # the engine brings libcst; it is imported only once there is work
    from pytest_caretaker.engine import HealOutcome
    from pytest_caretaker.results import FileChange, Fix


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

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for path in {path for item in items for path in test_code_files(item)}:
            rel = project_relpath(path, self.root)
            if rel is not None:
                self.test_files.add(rel)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        result = yield
        # Each phase that ran here finished (setup too: a slow fixture): none needs much longer.
        self.slowest = max(self.slowest or 0.0, result.duration)
        if result.when == "call" and result.passed:
            self.passed.append(item.nodeid)
        elif (
            result.failed
            and result.when in ("setup", "call")
            and call.excinfo is not None
            and item.nodeid not in self.failures
        ):
            try:
                self.failed(item.nodeid, item.session.items)
                self.failures[item.nodeid] = failures.record(
                    item.nodeid,
                    result.when,
                    item.path,
                    call.excinfo.value,
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
        return result

    def failed(self, nodeid: str, items: Sequence[pytest.Item] = ()) -> None:
        """Called at the first and every later failure, before it is recorded."""

    def export(self) -> dict[str, Any]:
        """The record as JSON-able data (what a worker sends to the controller)."""
        return {
            "failures": [failures.to_data(f) for f in self.failures.values()],
            "passed": self.passed,
            "test_files": sorted(self.test_files),
            "deselected": self.unselected.deselected,  # a worker runs part of what it collects
            "secrets": self.redactor.learnt(),
            "notes": self.notes,
        }

    def absorb(self, data: dict[str, Any]) -> None:
        """Add a worker's record to this one."""
        for item in data.get("failures", ()):
            failure = failures.from_data(item)
            self.failures.setdefault(failure.nodeid, failure)
        self.passed += data.get("passed", ())
        self.test_files.update(data.get("test_files", ()))
        self.unselected.deselected += data.get("deselected", ())
        for value, what in data.get("secrets", ()):
            self.redactor.remember(value, what)
        self.notes += [n for n in data.get("notes", ()) if n not in self.notes]


class WorkerRecorder(Recorder):
    """In a pytest-xdist worker: record, then hand the record to the controller (workeroutput)."""

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[WORKER_OUTPUT] = self.export()


#: The key of a worker's record in pytest-xdist's workeroutput.
WORKER_OUTPUT = "caretaker"


class HealSession(Recorder):
    def __init__(
        self, config: pytest.Config, settings: Settings, unsandboxed: str | None = None
    ) -> None:
        """unsandboxed: why candidates cannot run in the sandbox here (None: they can)."""
        super().__init__(config, settings)
        self.outcome: HealOutcome | None = None
        self.runner: Runner | None = None
        self.parser: pytest.Parser | None = None
        self.unsandboxed = unsandboxed
        self.ci = SessionEnd(config, settings, self.redactor)  # last-run.json, --junitxml
        self.confinement: Confinement | None = None
        if settings.sandbox != "off" and unsandboxed is None:
            self.confinement = Confinement(network=settings.sandbox_network)

    # -- during the run ----------------------------------------------------------------------

    @property
    def distributed(self) -> bool:
        """Whether pytest-xdist runs the tests in workers, which then send their records."""
        return bool(getattr(self.config.option, "dist", "no") != "no")

    def pytest_addoption(self, parser: pytest.Parser) -> None:
        # Historic, so called at registration: which tokens are option values (addopts.py).
        self.parser = parser

    def pytest_report_header(self) -> list[str]:
        lines = [summary.header(self.settings)]
        if self.settings.sandbox == "off":
            lines.append("caretaker: candidates run unsandboxed: --heal-sandbox off")
        elif self.unsandboxed is not None:
            lines.append(f"caretaker: candidates run unsandboxed: {self.unsandboxed}")
        else:
            from pytest_caretaker.verify.probe import confines

            lines.append(f"caretaker: sandbox on ({confines(self.settings.sandbox_network)})")
        return lines

    def failed(self, nodeid: str, items: Sequence[pytest.Item] = ()) -> None:
        if self.runner is None:
            # The verifier's warm server collects, and litellm imports, while the run goes on.
            settings, confinement = self.settings, self.confinement
            self.runner = overlap.start(
                self.config, settings, confinement, self.parser, nodeid, items
            )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.distributed and report.failed and report.when in ("setup", "call"):
            self.failed(report.nodeid)  # under xdist the controller learns of failures here

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """A pytest-xdist worker finished: take its record."""
        data = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
        if isinstance(data, dict):
            self.absorb(data)
        if error is not None:
            name = getattr(node, "gateway", None)
            self.notes.append(
                f"caretaker: worker {getattr(name, 'id', '?')} went down ({error}); "
                "failures it ran may be missing from healing"
            )

    # -- after the run -----------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)  # heals before --junitxml writes its file (ci/junit.py)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        runner, self.runner = self.runner, None
        begun, interrupted = time.monotonic(), exitstatus == pytest.ExitCode.INTERRUPTED
        if runner is not None:
            with runner, overlap.ending(self.notes):
                if not interrupted:
                    try:
                        self._heal(runner)
                    except Exception as error:  # never an INTERNALERROR: the run stands
                        self.notes.append(
                            f"caretaker: healing stopped by an internal error: {error!r}"
                            f"{where(error)}; please report it"
                        )
        self.notes += self.ci.leave(self.outcome, self.notes, interrupted, begun)

    def _heal(self, runner: Runner) -> None:
        from pytest_caretaker.engine import HealRun, heal_all
        from pytest_caretaker.history import record_session
        from pytest_caretaker.repair.memory import FixMemory
        from pytest_caretaker.verify.timer import derived

        if runner.test_limit is None and self.slowest is not None:  # not known under xdist
            runner.test_limit = derived([self.slowest])  # where pytest-timeout sets none

        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        quiet = self.config.get_verbosity() < 0

        def progress(index: int, total: int, nodeid: str) -> None:
            if terminal is not None and not quiet:
                if index == 1:
                    terminal.ensure_newline()
                terminal.write_line(f"healing {index}/{total} {nodeid} …")

        run = HealRun(
            settings=self.settings,
            runner=runner,
            failures=list(self.failures.values()),
            passed=sorted(self.passed) if self.distributed else self.passed,
            test_files=frozenset(self.test_files),
            unselected=self.unselected.all(),
            whole_files=whole_files(self.config, self.root, self.failures),
            python_files=tuple(str(p) for p in self.config.getini("python_files")),
            memory=FixMemory(getattr(self.config, "cache", None)),
            redactor=self.redactor,
            progress=progress,
            ask=self._ask if self.settings.review else None,
        )
        self.outcome = heal_all(run)
        # Before the summary, which tells when `caretaker report` is older than the history.
        history = record_session(
            self.root, self.outcome, self.settings, self.redactor, self.failures
        )
        if history is None:
            self.outcome.notes.append(
                "caretaker: could not append to .caretaker/history.jsonl; "
                "this session is missing from caretaker report"
            )

    def _ask(self, fix: Fix, changes: Sequence[FileChange]) -> bool:
        """Review mode: show one verified fix and ask whether to write it (default No)."""
        return review.ask(self.config, fix, changes)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        notes = list(self.notes)
        if self.outcome is not None:
            if self.outcome.results:
                from pytest_caretaker.llm.models import local_models

                out, done = terminalreporter, self.outcome
                local = local_models(self.settings, os.environ)
                summary.summary(out, done.results, done.patch, self.root, done.written, local)
            notes += self.outcome.notes
        for note in notes:
            terminalreporter.write_line(note, yellow=True)
