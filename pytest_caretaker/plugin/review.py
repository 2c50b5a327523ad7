"""Review mode (--heal-review): ask before each verified fix is written.

The questions come once pytest has shown the failures (in the terminal summary), one fix at a
time in the order the caretaker summary lists them: ``fix 1 of N``, every test the fix heals, the
functions it patches, its diff and explanation. The answers: ``y`` writes it, ``n`` (the default,
and what an empty line or the end of input means) does not, ``a`` writes it and every fix after
it without asking, ``q`` writes none of the rest.

An UNSURE fix (the tests cannot tell it from another) is shown with its doubt: why, the input
that separates it from the other, the other fix and a test to settle it. Review is the one way to
take such a fix besides --heal-accept-unsure: ``y`` takes it, and ``a`` takes it with the rest
as it takes any fix (whoever answers ``a`` has chosen not to be asked).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest

from pytest_caretaker.report import doubt, summary
from pytest_caretaker.results import FileChange, Fix
from pytest_caretaker.text import plural

if TYPE_CHECKING:  # the engine brings libcst; review imports it only once there is a fix
    from pytest_caretaker.engine import HealOutcome, HealRun

#: What each answer means: write this fix, and (for all and quit) the answer for every later one.
ANSWERS: dict[str, tuple[bool, bool | None]] = {
    "y": (True, None),
    "yes": (True, None),
    "n": (False, None),
    "no": (False, None),
    "": (False, None),
    "a": (True, True),
    "all": (True, True),
    "q": (False, False),
    "quit": (False, False),
}


def write(config: pytest.Config, run: HealRun, outcome: HealOutcome) -> None:
    """Ask about each of the outcome's fixes (in the summary's order), write those accepted."""
    from pytest_caretaker.engine import write as write_fixes

    write_fixes(replace(run, ask=Review(config, outcome.fixes)), outcome)


class Review:
    """The question asked before each fix is written (engine.Ask), in a terminal."""

    def __init__(self, config: pytest.Config, fixes: Sequence[Fix]) -> None:
        self.config = config
        self.fixes = list(fixes)
        self.rest: bool | None = None  # after all or quit: the answer for every later fix
        self.asked = 0

    def __call__(self, fix: Fix, changes: Sequence[FileChange]) -> bool:
        self.asked += 1
        if self.rest is not None:
            return self.rest
        now, later = ANSWERS[self.ask(fix, changes)]
        self.rest = later
        return now

    def ask(self, fix: Fix, changes: Sequence[FileChange]) -> str:
        """Show the fix and read an answer (one of ANSWERS; "" at the end of input)."""
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        if terminal is None:
            return ""
        if capture is not None:
            capture.suspend_global_capture(in_=True)
        try:
            number = self.fixes.index(fix) + 1 if fix in self.fixes else self.asked
            self.show(terminal, fix, changes, number)
            question = f"Write fix {number} of {len(self.fixes)}? y / n / a(ll) / q(uit) [n] "
            while True:
                terminal.write(question, bold=True, flush=True)
                line = sys.stdin.readline()
                if not line:  # the end of input: no
                    return ""
                if line.strip().lower() in ANSWERS:
                    return line.strip().lower()
                terminal.write_line("Answer y (write it), n (do not), a (this and the rest) or q.")
        except (OSError, EOFError):
            return ""
        finally:
            if capture is not None:  # back as it was after the last test: stdin captured
                capture.resume_global_capture()
                capture.suspend_global_capture()

    def show(self, terminal: Any, fix: Fix, changes: Sequence[FileChange], number: int) -> None:
        terminal.ensure_newline()
        terminal.write_line("")  # also ends -q's progress line, which ensure_newline leaves
        unsure = " (UNSURE)" if fix.unsure else ""
        terminal.write_sep("-", f"caretaker: fix {number} of {len(self.fixes)}{unsure}")
        heals = fix.nodeids
        if len(heals) == 1:
            terminal.write_line(f"heals {heals[0]}")
        else:
            terminal.write_line(f"heals {plural(len(heals), 'test')}:")
            for nodeid in heals:
                terminal.write_line(f"  {nodeid}")
        patched = ", ".join(edit.ref for edit in fix.first.edits if edit.kind != "import")
        terminal.write_line(f"patches {patched}")
        for change in changes:
            summary.show_diff(terminal, change)
        if fix.first.explanation:
            terminal.write_line(fix.first.explanation)
        candidate = fix.first.candidate
        if candidate is not None and candidate.doubt is not None:
            for line, markup in doubt.lines(candidate.doubt, indent=""):
                terminal.write_line(line, **markup)
