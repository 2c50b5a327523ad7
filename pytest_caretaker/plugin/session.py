"""The session object registered when healing is on: hooks of a few lines that call plain modules.

Recording happens during the run and costs nothing for passing tests (recorder.py); all repair
work happens after the run, in pytest_sessionfinish, and its outcome is printed in the terminal
summary, at pytest's verbosity. In review mode the fixes are asked about there too, once pytest
has shown the failures, and only then written.
Healing never changes the exit status: the run tested the code as it was.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

from pytest_caretaker import own
from pytest_caretaker.ci.session_end import SessionEnd
from pytest_caretaker.llm.extra import INSTALL
from pytest_caretaker.plugin.recorder import WORKER_OUTPUT, Recorder
from pytest_caretaker.report import summary
from pytest_caretaker.settings import Settings
from pytest_caretaker.text import where

if TYPE_CHECKING:  # what heals is imported at the first failure (a passing run pays little)
    from pytest_caretaker.engine import HealOutcome, HealRun
    from pytest_caretaker.verify.runner import Runner


class HealSession(Recorder):
    def __init__(
        self, config: pytest.Config, settings: Settings, unsandboxed: str | None = None
    ) -> None:
        """unsandboxed: why candidates cannot run in the sandbox here (None: they can)."""
        super().__init__(config, settings)
        self.outcome: HealOutcome | None = None
        self.runner: Runner | None = None
        self.reviewing: HealRun | None = None  # review mode: the fixes to ask about (_review)
        self.parser: pytest.Parser | None = None
        self.unsandboxed = unsandboxed
        self.ci = SessionEnd(config, settings, self.redactor)  # last-run.json, --junitxml

    # -- during the run ----------------------------------------------------------------------

    @property
    def distributed(self) -> bool:
        """Whether pytest-xdist runs the tests in workers, which then send their records."""
        return bool(getattr(self.config.option, "dist", "no") != "no")

    def pytest_addoption(self, parser: pytest.Parser) -> None:
        # Historic, so called at registration: which tokens are option values (addopts.py).
        self.parser = parser

    @own.restoring
    def pytest_report_header(self) -> list[str]:
        # One short line; -v says how the chain was chosen and what confines candidates. What
        # is missing (a model found, litellm not installed) and that candidates run unconfined
        # are warnings, said at every verbosity.
        verbose = self.config.get_verbosity() > 0
        lines = [summary.header(self.settings, why=verbose)]
        if not verbose and INSTALL in self.settings.reason:
            lines.append(f"caretaker: {self.settings.reason}")
        capped = summary.caps(self.settings)
        lines += [capped] if capped is not None else []
        if self.settings.sandbox == "off":
            lines.append("caretaker: candidates run unsandboxed: --heal-sandbox off")
        elif self.unsandboxed is not None:
            lines.append(f"caretaker: candidates run unsandboxed: {self.unsandboxed}")
        elif verbose:
            from pytest_caretaker.verify.probe import confines

            lines.append(f"caretaker: sandbox on ({confines(self.settings.sandbox_network)})")
        if verbose:
            from pytest_caretaker.culprit import recording

            lines.append(recording.header(self.root, self.settings))
        return lines

    def failed(self, nodeid: str, items: Sequence[pytest.Item] = ()) -> None:
        if self.runner is None:
            from pytest_caretaker.plugin import overlap
            from pytest_caretaker.verify.runner import Confinement

            # The verifier's warm server collects, and litellm imports, while the run goes on.
            settings, confinement = self.settings, None
            if settings.sandbox != "off" and self.unsandboxed is None:
                confinement = Confinement(network=settings.sandbox_network)
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
    @own.restoring  # before pytest ends the session's fixtures; a test's leaked patch stays
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from pytest_caretaker.culprit import recording

        runner, self.runner = self.runner, None
        head = recording.head_of(self.root)  # what the run tested, before a fix is committed
        begun, interrupted = time.monotonic(), exitstatus == pytest.ExitCode.INTERRUPTED
        self.begun = begun  # last-run.json's healing time counts from here (_review's too)
        if runner is not None:
            from pytest_caretaker.plugin import overlap

            with runner, overlap.ending(self.notes):
                if not interrupted:
                    try:
                        self._heal(runner)
                    except Exception as error:  # never an INTERNALERROR: the run stands
                        self.notes.append(
                            f"caretaker: healing stopped by an internal error: {error!r}"
                            f"{where(error)}; please report it"
                        )
        self.notes += self.ci.leave(self.outcome, self.notes, interrupted, begun, self.passed)
        self.notes += recording.remember(self.root, head, self.passed, self.failures)

    def _heal(self, runner: Runner) -> None:
        from pytest_caretaker.engine import HealRun, heal_all
        from pytest_caretaker.plugin.unselected import whole_files
        from pytest_caretaker.repair.memory import FixMemory
        from pytest_caretaker.repair.shared_memory import shared
        from pytest_caretaker.report import progress
        from pytest_caretaker.verify.timer import derived

        if runner.test_limit is None and self.slowest is not None:  # the workers' too (absorb)
            runner.test_limit = derived([self.slowest])  # the project timeout, if lower, holds

        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        shown = progress.Progress.on(terminal, self.config.get_verbosity() < 0, os.environ)
        run = HealRun(
            settings=self.settings,
            runner=runner,
            failures=list(self.failures.values()),
            passed=sorted(self.passed) if self.distributed else self.passed,
            test_files=frozenset(self.test_files),
            unselected=self.unselected.all(),
            whole_files=whole_files(self.config, self.root, self.failures),
            python_files=tuple(str(p) for p in self.config.getini("python_files")),
            memory=FixMemory(shared() or getattr(self.config, "cache", None)),
            redactor=self.redactor,
            progress=shown,
            defer_write=self.settings.review,  # once pytest has shown the failures: _review
        )
        try:
            self.outcome = heal_all(run)
        finally:
            shown.close()
        if self.settings.review:
            self.reviewing = run
        else:
            self._record()

    def _record(self) -> None:
        """Add the session to the history, before the summary (which tells when `caretaker
        report` is older than the history)."""
        from pytest_caretaker.history import record_session

        assert self.outcome is not None
        done = self.outcome
        history = record_session(
            self.root, done, self.settings, self.redactor, self.failures, session=done.session
        )
        if history is None:
            self.outcome.notes.append(
                "caretaker: could not append to .caretaker/history.jsonl; "
                "this session is missing from caretaker report"
            )

    def _review(self) -> None:
        """Review mode: now that pytest has shown the failures, ask about each fix in the
        summary's order, write those accepted, and add the session to the history."""
        run, self.reviewing = self.reviewing, None
        if run is not None and self.outcome is not None:
            from pytest_caretaker.plugin import review

            try:
                review.write(self.config, run, self.outcome)
            except Exception as error:  # never an INTERNALERROR: the run's outcome stands
                self.notes.append(f"caretaker: review stopped by an internal error: {error!r}")
            self._record()
            # last-run.json was written before the questions: again, with what was written
            self.notes += self.ci.leave(self.outcome, self.notes, False, self.begun, self.passed)

    @own.restoring
    def pytest_unconfigure(self) -> None:
        self._review()  # pytest gave no terminal summary (pytest 8.0 with --no-summary)

    @own.restoring
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        self._review()
        notes = list(self.notes)
        if self.outcome is not None:
            from pytest_caretaker.report import levels

            if self.outcome.results:
                from pytest_caretaker.llm.models import local_models

                out, done = terminalreporter, self.outcome
                local = local_models(self.settings, os.environ)
                shown = (done.results, done.patch, self.root, done.written, local)
                verbosity = self.config.get_verbosity()
                summary.summary(out, *shown, verbosity=verbosity, session=done.session)
            levels.count(terminalreporter, self.outcome.results)
            if self.config.get_verbosity() > 0 and self.outcome.results:
                terminalreporter.write_line(levels.timings(self.outcome.timings))
            notes += self.outcome.notes
        for note in notes:
            terminalreporter.write_line(note, yellow=True)
