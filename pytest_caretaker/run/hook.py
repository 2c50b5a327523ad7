"""The child's side of recording: an excepthook that writes the crash as data.

``caretaker run`` puts a folder holding a ``sitecustomize.py`` (SITECUSTOMIZE) first on the
command's PYTHONPATH; Python imports it at start-up and it calls ``install``. Only the standard
library is imported until something crashes: a command that passes pays for one small import.
The record goes to the file RECORD_ENV names, which install takes out of the environment, so that
a Python process the command starts records nothing over it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import traceback
from pathlib import Path
from types import TracebackType

RECORD_ENV = "CARETAKER_RUN_RECORD"
ROOT_ENV = "CARETAKER_RUN_ROOT"
#: The one case of a command: the name its trace is kept under (child.py).
CASE = "run"
SITECUSTOMIZE = """\
# Written by pytest-caretaker (caretaker run): records a crash with its frames and locals.
try:
    from pytest_caretaker.run.hook import install
except Exception:  # another interpreter, without caretaker: the printed traceback will do
    pass
else:
    install()
"""


def install() -> None:
    """Record an uncaught exception of this process, then print it as Python would."""
    target = os.environ.pop(RECORD_ENV, "")
    root = os.environ.get(ROOT_ENV, "")
    if not target or not root:
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        # The user's traceback matters more than our record.
        with contextlib.suppress(Exception):
            write(Path(target), Path(root), error)
        previous(kind, error, tb)

    sys.excepthook = hook


def write(target: Path, root: Path, error: BaseException) -> None:
    from pytest_caretaker.record.failure import record, to_data

    longrepr = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else root
    failure = record("", "call", script, error, longrepr, "", root)
    draft = target.with_suffix(".partial")
    draft.write_text(json.dumps(to_data(failure)), encoding="utf-8")
    draft.replace(target)
