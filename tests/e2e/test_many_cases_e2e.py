"""One bug, many failing cases (#33 item 4): it costs about what a few cases cost plus one proof
run. The baseline reruns the first ten cases that failed alike; the others run once more only,
in the proof, and are healed by it. A conftest of the project counts every run of every case."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pytest_caretaker.regression import ALIKE

PRICING = """\
def total(price, qty):
    subtotal = price * qty
    return subtotal - 1
"""
TESTS = """\
import pytest

from pricing import total


def test_a_price_is_a_number():
    assert isinstance(total(2, 3), int)


@pytest.mark.parametrize("n", range(40))
def test_total(n):
    assert total(n + 1, 2) == (n + 1) * 2
"""
COUNTING = """\
import os


def pytest_runtest_call(item):
    with open(os.environ["CASE_RUNS"], "a") as log:
        log.write(item.nodeid + "\\n")
"""


def test_forty_cases_of_one_bug_are_healed_with_one_more_run_of_most(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(pricing=PRICING, test_pricing=TESTS)
    pytester.makeconftest(COUNTING)
    log = tmp_path / "runs.log"
    monkeypatch.setenv("CASE_RUNS", str(log))

    # The sandbox would keep the count from the log outside the project: it is not what's tested.
    result = pytester.runpytest("--heal", "--heal-sandbox=off", "-p", "no:randomly")

    result.stdout.fnmatch_lines(["caretaker: 40 healed, 0 not healed*"])
    runs = Counter(log.read_text().splitlines())
    ids = sorted(f"test_pricing.py::test_total[{n}]" for n in range(40))  # caretaker's order
    # The run, the baseline and the proof for the first ten (the lead also in its trials) ...
    assert all(runs[nodeid] >= 3 for nodeid in ids[:ALIKE]), sorted(runs.items())
    # ... the run and the proof for the thirty that failed like them.
    assert {runs[nodeid] for nodeid in ids[ALIKE:]} == {2}, sorted(runs.items())
