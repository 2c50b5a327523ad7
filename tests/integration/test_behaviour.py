"""Comparing fixes beyond the tests (verify/behaviour.py) in a real trial server: the calls the
tests made are captured, inputs derived from them, and each variant run beside the original."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_caretaker.verify import trials
from pytest_caretaker.verify.runner import Runner
from pytest_caretaker.verify.trials import Trials

pytestmark = pytest.mark.skipif(not trials.AVAILABLE, reason="trials need fork (Linux)")

AGES = """\
from datetime import date


def age(born, today):
    years = today.year - born.year
    if (today.month, today.day) > (born.month, born.day):
        years -= 1
    return years


def mean(xs):
    total = 0
    for x in xs:
        total += x
    return total / max(len(xs), 1)
"""
TESTS = """\
from datetime import date

from ages import age, mean


def test_before_birthday():
    assert age(date(1990, 6, 1), date(2024, 5, 1)) == 33


def test_after_birthday():
    assert age(date(1990, 6, 1), date(2024, 7, 1)) == 34


def test_mean():
    assert mean([2, 4]) == 3
"""
BEFORE, AFTER, MEAN = (
    f"test_ages.py::{name}" for name in ("test_before_birthday", "test_after_birthday", "test_mean")
)
LESS = AGES.replace("> (born.month", "< (born.month")
LESS_EQUAL = AGES.replace("> (born.month", "<= (born.month")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Trials, Path]]:
    root = tmp_path_factory.mktemp("behaviour").resolve()
    root.joinpath("ages.py").write_text(AGES)
    root.joinpath("test_ages.py").write_text(TESTS)
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(root)]
    with Runner(root, root, args, timeout=30.0) as runner:
        started = Trials.start(runner, [BEFORE, AFTER, MEAN])
        assert started is not None
        assert started.ready()
        yield started, root
        started.close()


def test_the_tests_calls_are_captured_and_an_input_separates_two_fixes(
    server: tuple[Trials, Path],
) -> None:
    trials, root = server
    where = (str(root / "ages.py"), "age", 4)

    trial = trials.compare([BEFORE, AFTER], [BEFORE], 20.0, where, AGES, [LESS, LESS_EQUAL])

    assert trial is not None and trial.passed, trial
    calls = {compared["call"]: compared for compared in trial.behaviour}
    # The failing test's call first, then the passing one's, then what derives from them.
    assert trial.behaviour[0]["call"] == "age(datetime.date(1990, 6, 1), datetime.date(2024, 5, 1))"
    assert trial.behaviour[0]["origin"] == "failing"
    assert trial.behaviour[1]["origin"] == "passing"
    birthday = calls["age(datetime.date(1990, 6, 1), datetime.date(2024, 6, 1))"]
    assert birthday["origin"] == "derived: on the other's anniversary"
    original, less, less_equal = birthday["results"]
    assert (original["repr"], less["repr"], less_equal["repr"]) == ("34", "34", "33")
    assert less["group"] == original["group"] != less_equal["group"]
    # On the failing test's own call both fixes agree, and differ from the original.
    first = trial.behaviour[0]["results"]
    assert [r["repr"] for r in first] == ["34", "33", "33"]


def test_a_new_exception_and_a_hang_are_told(server: tuple[Trials, Path]) -> None:
    trials, root = server
    raising = AGES.replace("max(len(xs), 1)", "len(xs)")
    hanging = AGES.replace("    for x in xs:\n", "    while xs:\n        x = xs[0]\n")
    where = (str(root / "ages.py"), "mean", 11)

    trial = trials.compare([MEAN], [], 20.0, where, AGES, [raising, hanging])

    assert trial is not None and trial.passed, trial
    empty = next(c for c in trial.behaviour if c["call"] == "mean([])")
    original, divides, _ = empty["results"]
    assert (original["kind"], original["repr"], original["type"]) == ("return", "0.0", "float")
    assert (divides["kind"], divides["type"]) == ("raise", "ZeroDivisionError")
    # A variant that never returns runs out of CPU time, not of the trial's.
    tested = trial.behaviour[0]
    assert (tested["call"], tested["origin"]) == ("mean([2, 4])", "passing")
    assert [r["kind"] for r in tested["results"]] == ["return", "return", "timeout"]
    assert tested["results"][2]["group"] == 2  # a timeout is equal to nothing
