"""Probes: a statement put into a candidate's text, and the exit code its trial ended with.

overfit.py and docstring.py probe a fix found by running the lead case once more on a text of
the module with one statement added (an exit before a line, a check of the docstring's
examples); the statement ends the test process with a code that tells what happened.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_caretaker.verify.trials import Trial

_CODE = re.compile(r"exited with code (\d+)")


def inserted(lines: Sequence[str], line: int, statement: str) -> str | None:
    """lines with statement put before line (1-based), at that line's indent; None where line
    is out of range or the text does not compile then (before an ``elif``, say)."""
    if not 0 < line <= len(lines):
        return None
    target = lines[line - 1]
    indent = target[: len(target) - len(target.lstrip())]
    newline = "\r\n" if target.endswith("\r\n") else "\n"
    text = "".join([*lines[: line - 1], f"{indent}{statement}{newline}", *lines[line - 1 :]])
    try:
        compile(text, "<probe>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return text


def exit_code(trial: Trial | None) -> int:
    """The code the probed test process exited with; -1 when it did not exit (or never ran)."""
    found = _CODE.search(trial.reason) if trial is not None else None
    return int(found.group(1)) if found else -1
