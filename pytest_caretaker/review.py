"""Review mode (--heal-review): show one verified fix in the terminal and ask before writing it."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from pytest_caretaker.report import summary
from pytest_caretaker.results import FileChange, Fix


def ask(config: pytest.Config, fix: Fix, changes: Sequence[FileChange]) -> bool:
    """Show the fix and ask whether to write it; No unless the person types y or yes."""
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if terminal is None:
        return False
    if capture is not None:
        capture.suspend_global_capture(in_=True)
    try:
        terminal.ensure_newline()
        terminal.write_line("")  # also ends -q's progress line, which ensure_newline leaves
        terminal.write_sep("-", f"caretaker: fix for {fix.first.nodeid}")
        for change in changes:
            summary.show_diff(terminal, change)
        if fix.first.explanation:
            terminal.write_line(fix.first.explanation)
        terminal.write("Write this fix? [y/N] ", bold=True, flush=True)
        answer = sys.stdin.readline()
    except (OSError, EOFError):
        answer = ""
    finally:
        if capture is not None:  # back as it was after the last test: stdin captured
            capture.resume_global_capture()
            capture.suspend_global_capture()
    return answer.strip().lower() in ("y", "yes")
