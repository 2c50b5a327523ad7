"""The culprit search's own logic: the bisection's order, the recorded states, the partial
reverts made of a change, and the commit trailer of a revert."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pytest_caretaker.builtin import reverts
from pytest_caretaker.changes.diff import Hunk
from pytest_caretaker.changes.lineage import Changes
from pytest_caretaker.commits import Commit
from pytest_caretaker.culprit import bisect, states
from pytest_caretaker.culprit.search import Search
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.problem import Problem, Task
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Candidate, Failure, Fix, HealResult
from pytest_caretaker.run import confined
from pytest_caretaker.write.message import message


def run_search(search: Search, green_at: Mapping[str, int]) -> list[tuple[int, list[str]]]:
    """Run the search against tests that pass at every distance >= green_at[test]."""
    asked: list[tuple[int, list[str]]] = []
    while (step := search.next()) is not None:
        at, tests = step
        asked.append((at, tests))
        search.record(at, {t: at >= green_at.get(t, 10**6) for t in tests})
    return asked


def test_the_search_gallops_back_then_halves() -> None:
    search = Search(["t"], depth=32)

    asked = run_search(search, {"t": 5})

    assert [at for at, _ in asked] == [1, 2, 4, 8, 6, 5]
    assert search.settled("t") == (5, 4)  # green 5 commits back; HEAD~4 is the first failing


def test_a_dirty_tree_is_searched_from_head() -> None:
    search = Search(["t"], depth=32, dirty=True)

    asked = run_search(search, {"t": 0})  # the uncommitted change broke it

    assert [at for at, _ in asked] == [0]
    assert search.settled("t") == (0, -1)


def test_tests_whose_intervals_meet_run_together() -> None:
    search = Search(["a", "b"], depth=32)

    asked = run_search(search, {"a": 3, "b": 2})

    assert asked[:2] == [(1, ["a", "b"]), (2, ["a", "b"])]
    assert search.settled("a") == (3, 2) and search.settled("b") == (2, 1)


def test_the_search_stops_at_the_depth() -> None:
    search = Search(["t"], depth=5)

    asked = run_search(search, {})

    assert [at for at, _ in asked] == [1, 2, 4, 5]
    assert search.settled("t") == (None, 5)


def test_what_the_states_know_narrows_the_search() -> None:
    search = Search(["t"], depth=32)
    search.known("t", passing=6, failing=3)

    asked = run_search(search, {"t": 5})

    assert [at for at, _ in asked] == [4, 5]
    assert search.settled("t") == (5, 4)


def test_the_bisection_runs_each_commit_of_the_line_it_is_asked() -> None:
    line = [f"{n:040d}" for n in range(10)]
    ran: list[str] = []

    def run(sha: str, tests: Sequence[str], seconds: float) -> dict[str, bool]:
        ran.append(sha)
        return {t: line.index(sha) >= 3 for t in tests}

    search = Search(["t"], depth=9)
    assert bisect.bisect(search, line, run, lambda: 100.0) == ""
    assert ran == [line[1], line[2], line[4], line[3]]
    assert bisect.bisect(Search(["t"], 9), line, run, lambda: 0.0).startswith("the session")


def test_states_are_recorded_and_read_back(tmp_path: Path) -> None:
    states.record(tmp_path, "a" * 40, False, ["t.py::x", "t.py::y"], [])
    states.record(tmp_path, "b" * 40, True, ["t.py::x"], ["t.py::y"])
    states.record(tmp_path, "c" * 40, False, ["t.py::x"], ["t.py::y"])

    read = states.read(tmp_path)
    line = ["d" * 40, "c" * 40, "b" * 40, "a" * 40]  # newest first

    assert [s.head[0] for s in read] == ["a", "b", "c"]
    assert read[1].dirty and read[1].failed == {"t.py::y"}
    assert states.known(read, "t.py::y", line) == states.Known("a" * 40, ("c" * 40,))
    assert states.known(read, "t.py::x", line).green == "c" * 40
    assert states.known(read, "t.py::z", line) == states.Known(None, ())


def test_the_bisection_names_the_sandbox_entry_it_cannot_import() -> None:
    assert (confined.__name__, confined.POLICY_ENV) == (bisect.CONFINED, bisect.POLICY_ENV)


SOURCE = """\
def mean(xs):
    total = sum(xs[1:])
    count = len(xs)
    return total / (count - 2)
"""
A = Commit("a" * 40, "mean: skip the header", "Ann", "2024-01-02T10:00:00+00:00")


def task_for(tmp_path: Path, hunks: Sequence[Hunk]) -> tuple[Task, ProjectFiles, Editable]:
    (tmp_path / "stats.py").write_text(SOURCE)
    (tmp_path / "test_stats.py").write_text("def test_mean():\n    assert 2\n")
    failure = Failure("test_stats.py::test_mean", "call", "test_stats.py", "E", "", "", ())
    task = Task(
        Problem((failure,)),
        (Suspect("stats.py", "mean", False, 1.0),),
        {},
        0.1,
        lambda proposal: pytest.fail("not proved here"),
        log=_Log(),
        changes=Changes(A, tuple(hunks), (A,)),
    )
    editable = Editable("code", tmp_path, TestFiles(frozenset({"test_stats.py"})))
    return task, ProjectFiles(tmp_path), editable


class _Log:
    def add(self, title: str, text: str = "", code: str | None = None, language: str = "") -> None:
        pass

    def prompt(self, messages: object) -> None:
        pass


def test_reverts_of_one_hunk_then_both(tmp_path: Path) -> None:
    first = Hunk(
        "stats.py", "stats.py", 2, ("    total = sum(xs)",), 2, ("    total = sum(xs[1:])",), A
    )
    second = Hunk(
        "stats.py",
        "stats.py",
        4,
        ("    return total / count",),
        4,
        ("    return total / (count - 2)",),
        A,
    )
    task, files, editable = task_for(tmp_path, [first, second])

    found = reverts.candidates(task, files, editable)

    texts = [m.apply(SOURCE) for m in found]
    assert texts == [
        SOURCE.replace("xs[1:]", "xs"),
        SOURCE.replace("(count - 2)", "count"),
        SOURCE.replace("xs[1:]", "xs").replace("(count - 2)", "count"),
    ]
    assert all(m.reverts == (A.sha,) and m.function == "mean" for m in found)
    assert found[2].description == (
        'revert line 2 and line 4 of stats.py to before aaaaaaaaaa "mean: skip the header"'
    )


def test_a_hunk_the_file_no_longer_holds_is_not_reverted(tmp_path: Path) -> None:
    stale = Hunk("stats.py", "stats.py", 2, ("    total = 0",), 2, ("    total = 1",), A)
    task, files, editable = task_for(tmp_path, [stale])

    assert reverts.candidates(task, files, editable) == []


def test_a_revert_of_the_failing_test_is_refused_as_every_test_edit(tmp_path: Path) -> None:
    test_hunk = Hunk(
        "test_stats.py", "test_stats.py", 5, ("    assert 1",), 5, ("    assert 2",), A
    )
    task, files, editable = task_for(tmp_path, [test_hunk])

    refused = reverts.refusals(task, editable)

    assert reverts.candidates(task, files, editable) == []
    assert len(refused) == 1 and refused[0].startswith("the revert of test_stats.py (aaaaaaaaaa")
    assert "tests are the specification" in refused[0]


def test_a_revert_is_committed_with_a_reverts_part_of_trailer() -> None:
    candidate = Candidate((), (), "Partial revert.", reverts=(A.sha,))

    def redact(text: str) -> str:  # as the session's redactor does a long hex string
        return text.replace(A.sha, "[redacted]")

    text = message(Fix((HealResult("t.py::x", candidate, repairer="builtin"),)), redact)

    assert text.endswith(f"Healed-by: pytest-caretaker (builtin)\nReverts-part-of: {A.sha}\n")


def test_the_header_says_why_the_search_is_off(tmp_path: Path) -> None:
    from pytest_caretaker.culprit.recording import head_of, header, remember
    from pytest_caretaker.settings import Settings

    assert header(tmp_path, Settings()).endswith("off: not a git repository")
    assert head_of(tmp_path) is None  # and no process was started to learn it
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "a.py"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], cwd=tmp_path, check=True)
    assert "off: no green state known" in header(tmp_path, Settings())
    assert "on: 0 clean sessions recorded; --heal-bisect up to 32" in header(
        tmp_path, Settings(bisect=True)
    )
    head = head_of(tmp_path)
    assert head is not None and head[1] is False
    assert remember(tmp_path, head, ["t.py::x"], []) == []
    assert header(tmp_path, Settings()) == "caretaker: culprit search on: 1 clean session recorded"
