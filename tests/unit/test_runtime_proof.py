"""What proves a runtime fix (#45): the recorded good calls are replayed with it and each must
return what it returned; a fix proved by its crash alone is UNSURE, with the recorded call, what
each side gives on it and a test to settle it; each fix says what proved it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Candidate, Doubt, HealResult
from pytest_caretaker.runtime import goodcalls, records
from pytest_caretaker.runtime.check import Again, Replay, ReplayCheck, Replayed, differs, reproduced
from pytest_caretaker.runtime.goodcalls import GoodCall
from pytest_caretaker.runtime.proof import Evidence, proof_of, proved_by, settled

STATS = """\
from pytest_caretaker.runtime import heal


@heal(id="mean-gap")
def mean_gap(values):
    gaps = [b - a for a, b in zip(values, values[1:])]
    return sum(gaps) / len(gaps)
"""
MAIN = "from app.stats import mean_gap\n\nprint(mean_gap([1, 4, 9]))\nprint(mean_gap([5]))\n"
PLUS_ONE = STATS.replace("/ len(gaps)", "/ (len(gaps) + 1)")
GUARDED = STATS.replace("    return sum", "    if not gaps:\n        return 0.0\n    return sum")
RAISES = GUARDED.replace(
    "    gaps = [", "    if len(values) > 2:\n        raise ValueError('long')\n    gaps = ["
)


def crashed(root: Path, main: str = MAIN) -> records.Crash:
    """The project after its program ran: a crash of mean_gap, and its good calls if any."""
    (root / "pyproject.toml").write_text("[project]\nname = 'stats'\n")
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "stats.py").write_text(STATS)
    (root / "main.py").write_text(main)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run([sys.executable, "main.py"], cwd=root, env=env, capture_output=True)
    assert done.returncode == 1, done.stderr
    (crash,) = records.all_crashes(root)
    return crash


def checking(root: Path, crash: records.Crash) -> ReplayCheck:
    scratch = root / "scratch"
    scratch.mkdir()
    good = goodcalls.load(root, crash.id)
    return ReplayCheck(Replay(crash, root, 30.0, scratch, None, good))


def test_a_fix_that_changes_a_good_calls_result_is_refused_naming_the_call(
    tmp_path: Path,
) -> None:
    crash = crashed(tmp_path)
    check = checking(tmp_path, crash)
    problem = Problem((crash.failure,))

    wrong = check(problem, {"app/stats.py": PLUS_ONE.encode()})
    right = check(problem, {"app/stats.py": GUARDED.encode()})
    raising = check(problem, {"app/stats.py": RAISES.encode()})

    assert not wrong.ok
    assert wrong.reason == (
        "mean_gap([1, 4, 9]) returned 4.0 before, 2.6666666666666665 with the fix"
    )
    assert check.refused[0] == (
        "`return sum(gaps) / (len(gaps) + 1)`: mean_gap([1, 4, 9]) returned 4.0 before, "
        "2.6666666666666665 with the fix"
    )
    assert right.ok, right.reason
    assert list(check.returned.values()) == ["0.0"]  # what the recorded call returns with it
    assert raising.reason == (
        "mean_gap([1, 4, 9]) returned 4.0 before, raised ValueError: long with the fix"
    )


def test_the_code_as_it_is_keeps_only_the_good_calls_it_reproduces(tmp_path: Path) -> None:
    crash = crashed(tmp_path)
    (tmp_path / "app" / "stats.py").write_text(STATS.replace("sum(gaps)", "2 * sum(gaps)"))
    check = checking(tmp_path, crash)

    replayed, _ = check.replay.run({})

    assert not replayed.ok  # the recorded call still raises
    assert replayed.good == (Again(0, False, "8.0"),)
    assert reproduced(check.replay.good, replayed) == []


GOOD = GoodCall("mean_gap([1, 4, 9])", "4.0", b"", b"")


@pytest.mark.parametrize(
    ("made", "said"),
    [
        ((Again(0, True, "4.0"),), ""),
        ((Again(0, False, "2.5"),), "mean_gap([1, 4, 9]) returned 4.0 before, 2.5 with the fix"),
        ((), "mean_gap([1, 4, 9]) returned 4.0 before, nothing (it was not made) with the fix"),
    ],
)
def test_differs_names_the_first_good_call_that_gives_something_else(
    made: tuple[Again, ...], said: str
) -> None:
    replayed = Replayed(True, 0, "", 0.1, good=made)
    assert differs([GOOD], replayed, str) == said


def test_what_a_good_call_gives_now_is_redacted_before_it_is_said() -> None:
    replayed = Replayed(True, 0, "", 0.1, good=(Again(0, False, "'sk-live-123'"),))
    hidden = differs([GOOD], replayed, lambda text: "[redacted #1: a key]")
    assert hidden == "mean_gap([1, 4, 9]) returned 4.0 before, [redacted #1: a key] with the fix"


@pytest.mark.parametrize(
    ("evidence", "said"),
    [
        (Evidence(0, 0, 0), "Proved only by the recorded call, which no longer raises"),
        (Evidence(1, 0, 0), "Proved by the recorded call and 1 recorded good call"),
        (Evidence(3, 0, 2), "Proved by the recorded call, 3 recorded good calls and 2 tests"),
        (Evidence(0, 0, 1), "Proved by the recorded call and 1 test"),
        (
            Evidence(2, 1, 0),
            "Proved by the recorded call and 2 recorded good calls (1 other recorded good call "
            "gave another result with the code as it is, so proved nothing)",
        ),
    ],
)
def test_what_proved_a_fix_is_said(evidence: Evidence, said: str) -> None:
    assert proved_by(evidence) == said


def result(doubt: Doubt | None = None) -> HealResult:
    candidate = Candidate((), (), "Divide by the count when there is one.", doubt=doubt)
    return HealResult("mean-gap", candidate, repairer="openai/gpt-4o-mini")


def test_a_fix_proved_by_its_crash_alone_is_unsure(tmp_path: Path) -> None:
    crash = crashed(tmp_path, "from app.stats import mean_gap\n\nmean_gap([5])\n")

    done = settled(result(), Evidence(0, 0, 0), crash, "0.0")

    assert done.unsure
    assert done.explanation == (
        "Divide by the count when there is one. Proved only by the recorded call, which no "
        "longer raises."
    )
    assert done.candidate is not None and done.candidate.doubt == Doubt(
        "the only proof is that the recorded call no longer raises; no recorded good call and "
        "no test checks what mean_gap returns",
        call="mean_gap([5])",
        outcome="returns 0.0",
        other="raises ZeroDivisionError: division by zero",
        test="from app.stats import mean_gap\n\n\n"
        "def test_mean_gap_of_the_recorded_call():\n"
        "    assert mean_gap([5]) == ...  # what it should return\n",
    )
    assert proof_of(done.explanation) == (
        "proved only by the recorded call, which no longer raises"
    )


def test_a_fix_a_good_call_or_a_test_proves_is_not_unsure(tmp_path: Path) -> None:
    crash = crashed(tmp_path)
    judged = Doubt("a deleted raise")

    by_call = settled(result(), Evidence(1, 0, 0), crash, "0.0")
    by_test = settled(result(), Evidence(0, 0, 1), crash, "0.0")
    doubted = settled(result(judged), Evidence(0, 0, 0), crash, "0.0")

    assert not by_call.unsure and not by_test.unsure
    assert by_call.explanation.endswith(" Proved by the recorded call and 1 recorded good call.")
    assert proof_of(by_test.explanation) == "proved by the recorded call and 1 test"
    assert doubted.candidate is not None and doubted.candidate.doubt is judged  # it says more
    assert settled(HealResult("x", reason="no"), Evidence(0, 0, 0), crash, "") == HealResult(
        "x", reason="no"
    )
