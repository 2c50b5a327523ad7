"""PytestCheck: a fix proved for one problem is not proved against the same tests again for the
next problem it heals (verify/check.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from helpers import Recorded

from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Failure
from pytest_caretaker.verify.check import AGAIN, AGAIN_CASES, PytestCheck

FIX = {"calc.py": b"def f():\n    return 1\n"}
OTHER = {"calc.py": b"def f():\n    return 2\n"}


def problem(*ids: str, regression: Sequence[str] = ()) -> Problem:
    cases = (Failure(n, "call", n.split("::")[0], "AssertionError", "", "", ()) for n in ids)
    return Problem(tuple(cases), tuple(regression))


def test_the_second_proof_of_a_fix_runs_only_its_own_cases_and_what_is_new() -> None:
    runner = Recorded()
    wider = ["test_b.py::test_one", "test_b.py::test_two"]
    check = PytestCheck(cast(Any, runner), lambda changed: wider)

    first = check(problem("test_a.py::test_x", regression=["test_a.py::test_ok"]), FIX)
    second = check(
        problem("test_c.py::test_y", regression=["test_a.py::test_ok", "test_c.py::test_new"]),
        FIX,
    )

    assert first.ok and second.ok
    assert runner.runs == [
        ["test_a.py::test_x", "test_a.py::test_ok", *wider],
        *[["test_a.py::test_x"]] * AGAIN,  # the case it heals, again alone
        ["test_c.py::test_y", "test_c.py::test_new"],
        *[["test_c.py::test_y"]] * AGAIN,
    ]
    # What passed with the fix before is part of the second verdict's evidence all the same.
    assert {"test_a.py::test_ok", *wider} <= second.passed


def test_other_changes_and_a_rejected_proof_teach_nothing() -> None:
    runner = Recorded(fails={"test_b.py::test_one"})
    check = PytestCheck(cast(Any, runner), lambda changed: ["test_b.py::test_one"])
    lead = problem("test_a.py::test_x", regression=["test_a.py::test_ok"])

    rejected = check(lead, FIX)
    runner.fails.clear()
    again = check(lead, FIX)
    other = check(lead, OTHER)

    assert not rejected.ok and rejected.reason == "fix broke test_b.py::test_one"
    assert again.ok and other.ok
    everything = ["test_a.py::test_x", "test_a.py::test_ok", "test_b.py::test_one"]
    again = [["test_a.py::test_x"]] * AGAIN  # a proof that passes runs the case it heals again
    assert runner.runs == [everything, everything, *again, everything, *again]


class Chancy(Recorded):
    """The first run passes everything; later runs fail those named in fails."""

    def run(self, nodeids: Sequence[str], *args: Any, **kwargs: Any) -> Any:
        fails, self.fails = self.fails, (self.fails if self.runs else set())
        try:
            return super().run(nodeids, *args, **kwargs)
        finally:
            self.fails = fails


def test_a_fix_whose_lead_fails_when_run_again_is_refused_as_chance() -> None:
    runner = Chancy(fails={"test_a.py::test_x"})
    check = PytestCheck(cast(Any, runner))

    verdict = check(problem("test_a.py::test_x", regression=["test_a.py::test_ok"]), FIX)

    assert runner.runs == [["test_a.py::test_x", "test_a.py::test_ok"], ["test_a.py::test_x"]]
    assert not verdict.ok
    assert verdict.reason == (
        "test_a.py::test_x still fails when run again (it passed the first run: it passes by"
        " chance)"
    )
    # Nothing is remembered of a refused proof: the same fix is proved afresh next time.
    runner.fails.clear()
    assert check(problem("test_a.py::test_x"), FIX).ok and len(runner.runs) == 3 + AGAIN


def test_a_fix_whose_other_case_fails_when_run_again_is_refused_too() -> None:
    runner = Chancy(fails={"test_a.py::test_y"})
    check = PytestCheck(cast(Any, runner))

    verdict = check(problem("test_a.py::test_x", "test_a.py::test_y"), FIX)

    assert runner.runs[1] == ["test_a.py::test_x", "test_a.py::test_y"]
    assert not verdict.ok and verdict.reason.startswith("test_a.py::test_y still fails when run")


def test_a_fix_of_many_cases_runs_only_the_first_of_them_again() -> None:
    runner = Recorded()
    ids = [f"test_a.py::test_x[{n}]" for n in range(AGAIN_CASES + 5)]

    assert PytestCheck(cast(Any, runner))(problem(*ids), FIX).ok

    # A bug of 300 cases costs the proof and two runs of a few, not three runs of all.
    assert runner.runs == [ids] + [ids[:AGAIN_CASES]] * AGAIN
