"""The two private pytest APIs the verification children use, in one place.

- Assertion rewriting in memory: a patched test module must keep pytest's assertion messages, and
  pytest offers no public way to rewrite a source that is not a file on disk.
- Running one item's protocol without the reporting hooks: a trial reruns a few items thousands of
  times and nobody reads a trial's terminal output.
- Starting a run in a session that is already collected (collected.py): its temporary folder and
  its terminal report are the run's own, not the server's.

Each is imported when first called. ``tests/unit/test_pytest_private.py`` is the canary: after a
pytest upgrade it says which of them moved, before a heal does.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def rewrite_asserts(tree: ast.Module, source: bytes, origin: str, config: pytest.Config) -> None:
    """Rewrite the asserts of a test module's tree in place, as pytest's import hook does."""
    from _pytest.assertion.rewrite import rewrite_asserts as rewrite

    rewrite(tree, source, origin, config)


def run_item(item: pytest.Item, nextitem: pytest.Item | None) -> Sequence[pytest.TestReport]:
    """Run one item's setup, call and teardown; its reports, unlogged."""
    from _pytest.runner import runtestprotocol

    return runtestprotocol(item, log=False, nextitem=nextitem)


def fresh_run(config: pytest.Config, basetemp: Path) -> None:
    """Make the next run of a collected session's items its own: tmp_path under basetemp (as
    ``--basetemp`` would), a terminal report that counts and times only that run, and output
    to this process's stdout and stderr now (pytest's capturing restores the descriptors it
    saved when the session began after each test)."""
    from _pytest import timing

    capture = config.pluginmanager.get_plugin("capturemanager")
    streams = getattr(capture, "_global_capturing", None)
    for fd, name in ((1, "out"), (2, "err")):
        saved = getattr(getattr(streams, name, None), "targetfd_save", None)
        if isinstance(saved, int):
            os.dup2(fd, saved)

    use_basetemp(config, basetemp)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.stats = {}
        restart_clock(reporter, timing)


def restart_clock(reporter: Any, timing: ModuleType) -> None:
    """Have the terminal report time the session from now: recent pytest keeps a
    ``timing.Instant``, earlier 8.x releases (8.0 among them) the start's ``timing.time()``."""
    instant = getattr(timing, "Instant", None)
    if instant is not None:
        reporter._session_start = instant()
    else:
        reporter._sessionstarttime = timing.time()


def use_basetemp(config: pytest.Config, basetemp: Path) -> None:
    """tmp_path under basetemp from now on, as ``--basetemp`` would have it (emptied first)."""
    factory = config._tmp_path_factory  # type: ignore[attr-defined]
    factory._given_basetemp = basetemp
    factory._basetemp = None
