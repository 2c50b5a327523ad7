"""Trials side by side: a server with several workers runs candidates at once, answers them in
the order they were sent, keeps their temporary folders apart, and cancels what a search no
longer wants."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.verify import trials
from pytest_caretaker.verify.trials import Candidate, Trials

pytestmark = pytest.mark.skipif(not trials.AVAILABLE, reason="trials need fork (Linux)")

MEET = """\
import os
import time


def meet(folder, name, others=1):
    '''Leave a mark in folder, then wait (at most 3 s) for the marks of `others` more.'''
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, name), "w").close()
    deadline = time.monotonic() + 3
    while len(os.listdir(folder)) <= others and time.monotonic() < deadline:
        time.sleep(0.01)
    return len(os.listdir(folder)) > others


def together(scratch):
    return False
"""
TESTS = """\
from meet import together


def test_together(tmp_path):
    (tmp_path / "mine").write_text("kept")
    assert together(tmp_path)
    assert (tmp_path / "mine").read_text() == "kept"
"""
TOGETHER = "test_meet.py::test_together"
LINE = MEET[: MEET.index("def together")].count("\n") + 1


def candidate(project: Path, body: str, limit: float = 10.0) -> Candidate:
    source = MEET.replace("    return False\n", body)
    return Candidate([TOGETHER], limit, str(project / "meet.py"), "together", LINE, source)


def meeting(folder: Path, name: str) -> str:
    """A body for together(): meet the other candidate in folder, under name."""
    return f"    return meet({str(folder)!r}, {name!r})\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path.joinpath("project").resolve()
    root.mkdir()
    root.joinpath("meet.py").write_text(MEET)
    root.joinpath("test_meet.py").write_text(TESTS)
    return root


def server(project: Path, workers: int, runners: Any) -> Trials:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    started = Trials.start(runners(project, project, args, timeout=30.0), [TOGETHER], workers)
    assert started is not None and started.ready()
    return started


@pytest.fixture
def pair(project: Path, runners: Any) -> Iterator[Trials]:
    started = server(project, 2, runners)
    yield started
    started.close()


def test_two_workers_run_two_candidates_at_once(pair: Trials, project: Path) -> None:
    # Each candidate's test passes only if the other runs at the same time (the sandbox lets a
    # trial write in the server's own folder only).
    folder = pair.workdir / "meeting"
    both = [candidate(project, meeting(folder, name)) for name in ("a", "b")]

    done = list(pair.map(both))

    assert [trial is not None and trial.passed for trial in done] == [True, True]


def test_one_worker_runs_them_one_after_the_other(project: Path, runners: Any) -> None:
    alone = server(project, 1, runners)
    folder = alone.workdir / "meeting"
    try:
        first, second = alone.map(
            [candidate(project, meeting(folder, name)) for name in ("a", "b")]
        )
    finally:
        alone.close()

    assert first is not None and not first.passed
    assert second is not None and second.passed  # the first one's mark was there


def test_answers_come_in_the_order_the_candidates_were_sent(pair: Trials, project: Path) -> None:
    # The first candidate takes longest; its answer still comes first.
    slow = candidate(project, "    import time; time.sleep(0.3); return True\n")
    fails = candidate(project, "    return False\n")
    passes = candidate(project, "    return True\n")

    done = list(pair.map([slow, fails, passes, fails]))

    assert [trial is not None and trial.passed for trial in done] == [True, False, True, False]
    assert all(trial is not None and not trial.unsupported for trial in done)


def test_side_by_side_trials_keep_their_temporary_folders_apart(
    pair: Trials, project: Path
) -> None:
    # Both tests write into tmp_path, meet, then read back what they wrote: had they one basetemp,
    # the second to start would have emptied the first's folder.
    folder = pair.workdir / "meeting"
    both = [candidate(project, meeting(folder, name)) for name in ("a", "b")]

    done = list(pair.map(both))

    assert [trial is not None and trial.passed for trial in done] == [True, True]
    assert {path.name for path in pair.workdir.glob("basetemp-*")} == {"basetemp-0", "basetemp-1"}


def test_a_search_that_stops_cancels_the_trials_in_flight(project: Path, runners: Any) -> None:
    alone = server(project, 1, runners)
    hangs = candidate(project, "    while True:\n        pass\n", limit=30.0)
    try:
        taken = alone.map([candidate(project, "    return True\n"), hangs])
        first = next(taken)  # the hanging one is sent meanwhile, into the one worker
        taken.close()
        started = time.monotonic()
        again = candidate(project, "    return True\n")
        after = alone.run([TOGETHER], 30.0, again.path, again.qualname, again.line, again.source)
        waited = time.monotonic() - started
    finally:
        alone.close()

    assert first is not None and first.passed
    assert after is not None and after.passed
    assert waited < 15  # not behind the 30 s the cancelled trial had
