"""What a command's own interpreter needs from caretaker, when it has no caretaker of its own.

``caretaker run -- /usr/bin/python3 report.py`` runs the script with that interpreter: the hook
that records the crash (hook.py) and the child that runs a candidate (child.py) run there too,
and another interpreter (the system's, another venv, a pipx-installed caretaker's neighbour)
cannot import them. Both are standard library only, with the few modules they import (KIT), so
those files are copied, as a ``pytest_caretaker`` package of their own, into the hook's folder,
which is first on the command's PYTHONPATH. An interpreter that imports caretaker's child itself
gets nothing (a copy would shadow its own package); one older than Python 3.10 is said in one line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_caretaker.run.command import python_target

#: The package's files the hook and the child import (tests/integration/test_run_kit.py).
KIT = (
    "__init__.py",
    "commits.py",
    "syntax.py",
    "project/__init__.py",
    "project/files.py",
    "project/imports.py",
    "project/reads.py",
    "record/__init__.py",
    "record/code.py",
    "record/encodings.py",
    "record/failure.py",
    "record/gitdirs.py",
    "record/literals.py",
    "record/patterns.py",
    "record/prose.py",
    "record/redact.py",
    "record/secrets.py",
    "record/sources.py",
    "results.py",
    "run/__init__.py",
    "run/hook.py",
    "run/child.py",
    "verify/__init__.py",
    "verify/channel.py",
    "verify/landlock.py",
    "verify/pids.py",
    "verify/protocol.py",
    "verify/sandbox.py",
    "verify/swap.py",
    "verify/view.py",
)
PACKAGE = Path(__file__).resolve().parents[1]
#: The oldest Python the kit's code runs on.
OLDEST = (3, 10)
_PROBE = (
    "import sys\n"
    "try:\n"
    "    import pytest_caretaker.run.child\n"
    "    has = 1\n"
    "except Exception:\n"
    "    has = 0\n"
    "print(sys.version_info[0], sys.version_info[1], has)\n"
)


def prepare(argv: Sequence[str], env: Mapping[str, str], hook: Path) -> str | None:
    """Make caretaker's hook and child importable by the interpreter argv runs, with hook first
    on its PYTHONPATH; why it cannot be, in one line, else None."""
    target = python_target(argv)
    if target is None or _ours(target.interpreter, env):
        return None
    try:
        probed = subprocess.run(
            [target.interpreter, "-c", _PROBE],
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=30,
        )
        major, minor, has = (int(word) for word in probed.stdout.split())
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None  # the command's own run says what is wrong with it
    if (major, minor) < OLDEST:
        return (
            f"{argv[0]} is Python {major}.{minor}; caretaker run heals Python "
            f"{OLDEST[0]}.{OLDEST[1]} or newer"
        )
    if not has:
        place(hook)
    return None


def place(folder: Path) -> None:
    """Copy the kit into folder, as the package pytest_caretaker."""
    for name in KIT:
        target = folder / "pytest_caretaker" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PACKAGE / name, target)


def _ours(interpreter: str, env: Mapping[str, str]) -> bool:
    """Whether interpreter is caretaker's own (the same path: a venv's python is a link to
    another that has other packages, so a resolved path would not say)."""
    found = shutil.which(interpreter, path=env.get("PATH", os.defpath))
    return found is not None and os.path.abspath(found) == os.path.abspath(sys.executable)
