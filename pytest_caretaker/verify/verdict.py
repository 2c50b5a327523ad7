"""A run's verdict, on the run's side: the one file it reports to, and the one folder it writes in.

A run's folder (made by the parent, runner.py) holds its spec, the candidate's files, its output
and its result file. Only RUN_SPACE inside it is writable to the run (sandbox.confine_run), so
candidate code can neither plant a result nor replace the spec. The worker opens the result file
before the run is confined (``open_result``) and writes it as its last act (``report_to``); the
parent reads it only after the run's clean exit (channel.ended). Standard library only: the
children import it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pytest_caretaker.verify.protocol import RESULT, RUN_SPACE, RunReport


def open_result(spec_path: str) -> int:
    """The run's result file, opened for writing before the run is confined: the run's folder is
    not writable to the run (only its RUN_SPACE is), so candidate code cannot open it again,
    plant it, or replace it. The parent reads it only after a clean exit."""
    path = Path(spec_path).with_name(RESULT)
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)


def run_space(spec_path: str) -> str:
    """The one folder a run of this spec may write in (its tmp_path, its temp files)."""
    return str(Path(spec_path).with_name(RUN_SPACE))


def report_to(fd: int, report: RunReport) -> None:
    """Write a run's report to its result file, as the worker's last act: from its start and
    to its end, whatever else was written there."""
    data = json.dumps(report).encode()
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done:], done)
    os.ftruncate(fd, done)
    os.close(fd)
