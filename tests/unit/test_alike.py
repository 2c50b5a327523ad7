"""Many failing cases, one bug (#33 item 4): the baseline reruns the first ALIKE cases of a kind
(regression.alike, regression.baseline) and the others take their first case's root cause
(cluster.grouped)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

from pytest_caretaker import regression
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.repair import cluster
from pytest_caretaker.results import Executed, Failure, Frame
from pytest_caretaker.verify.runner import Outcome, RunResult


def case(nodeid: str, line: int = 6, exc: str = "AssertionError") -> Failure:
    frames = (Frame("test_p.py", 5, "test"), Frame("p.py", line, "total"))
    return Failure(nodeid, "call", "test_p.py", exc, "assert 1 == 2", "", frames)


def cases(count: int, test: str = "test_total", line: int = 6, ids: str = "") -> list[Failure]:
    return [case(f"test_p.py::{test}[{ids}{n}]", line) for n in range(count)]


class Recorded:
    """A runner that says each case failed, or passed where told, and remembers what it ran."""

    def __init__(self, passing: Sequence[str] = ()) -> None:
        self.passing = set(passing)
        self.runs: list[list[str]] = []

    def run(
        self, ids: Sequence[str], patches: object = None, trace: bool = False, **limits: object
    ) -> RunResult:
        self.runs.append(list(ids))
        outcomes = {i: Outcome("passed" if i in self.passing else "failed") for i in ids}
        return RunResult(outcomes, {i: Executed() for i in ids}, seconds=1.0)


def test_the_cases_beyond_the_first_ten_of_a_kind_follow_the_first() -> None:
    many = cases(25)
    followers = regression.alike(many)
    assert sorted(followers) == sorted(c.nodeid for c in many[regression.ALIKE :])
    assert set(followers.values()) == {tuple(c.nodeid for c in many[: regression.ALIKE])}


def test_another_test_another_line_or_another_exception_is_another_kind() -> None:
    mixed = [
        *cases(12),
        *cases(12, test="test_count"),
        *cases(12, line=9, ids="b"),
        *[case(f"test_p.py::test_total[k{n}]", exc="KeyError") for n in range(12)],
    ]
    followers = regression.alike(mixed)
    assert len(followers) == 4 * (12 - regression.ALIKE)
    assert regression.alike(cases(regression.ALIKE)) == {}


def stopped(count: int) -> list[Failure]:
    """Cases pytest-timeout stopped, each somewhere else in total's loop."""
    return [
        Failure(
            f"test_p.py::test_total[{n}]",
            "call",
            "test_p.py",
            "Failed",
            "Timeout (>10.0s) from pytest-timeout.",
            "",
            (Frame("test_p.py", 5, "test"), Frame("p.py", 6 + n % 3, "total")),
        )
        for n in range(count)
    ]


def test_of_the_cases_that_hung_two_are_rerun_wherever_the_limit_found_each() -> None:
    # pytest-timeout stopped each case somewhere in the loop: the line is chance, not a kind.
    hung = stopped(9)
    followers = regression.alike([*hung, *cases(3)])
    assert sorted(followers) == sorted(c.nodeid for c in hung[regression.ALIKE_HUNG :])
    assert set(followers.values()) == {tuple(c.nodeid for c in hung[: regression.ALIKE_HUNG])}


def test_the_baseline_reruns_the_first_of_a_kind_and_the_others() -> None:
    many, runner = cases(300), Recorded()
    run, followers = regression.baseline(runner, many, ["test_p.py::test_ok"])  # type: ignore[arg-type]
    assert runner.runs == [[c.nodeid for c in many[: regression.ALIKE]] + ["test_p.py::test_ok"]]
    assert followers == {c.nodeid: many[0].nodeid for c in many[regression.ALIKE :]}
    assert run.seconds == 1.0


def test_a_kind_whose_sample_does_not_all_fail_again_is_rerun_whole() -> None:
    many = cases(15)
    runner = Recorded(passing=[many[3].nodeid])  # order-dependent: passes alone
    run, followers = regression.baseline(runner, many, [])  # type: ignore[arg-type]
    assert runner.runs[1] == [c.nodeid for c in many[regression.ALIKE :]]
    assert followers == {}
    assert set(run.outcomes) == {c.nodeid for c in many}
    assert run.seconds == 2.0


def test_followers_take_the_cause_of_the_case_they_follow_found_once() -> None:
    many, asked = cases(30), []

    def cause(failure: Failure) -> object:
        asked.append(failure.nodeid)
        return None if failure.nodeid.endswith("[0]") else ("own", failure.nodeid)

    followers = {c.nodeid: many[0].nodeid for c in many[regression.ALIKE :]}
    groups = cluster.grouped(many, followers, cause)  # type: ignore[arg-type]
    # The first case has no known cause: it is alone but for the cases that follow it.
    assert [len(g) for g in groups] == [1 + 20] + [1] * 9
    assert groups[0][0] is many[0]
    assert sorted(asked) == sorted(c.nodeid for c in many[: regression.ALIKE])


def test_the_cases_that_hung_in_one_function_have_one_root_cause(tmp_path: Path) -> None:
    hung = stopped(3)
    baseline = RunResult({c.nodeid: Outcome("failed") for c in hung}, {})
    editable = SimpleNamespace(tests=frozenset({"test_p.py"}))
    files = ProjectFiles(tmp_path)
    causes = {cluster.root_cause(c, baseline, [], files, editable) for c in hung}  # type: ignore[arg-type]
    assert causes == {("Failed", "p.py:total")}
    # An exception's line is its cause: one line, one kind.
    raised = [case(f"test_p.py::test_total[{n}]", line=6 + n) for n in range(2)]
    baseline = RunResult({c.nodeid: Outcome("failed") for c in raised}, {})
    assert len({cluster.root_cause(c, baseline, [], files, editable) for c in raised}) == 2  # type: ignore[arg-type]


class Slow(Recorded):
    """A runner whose runs with the module's slow test do not finish within their time."""

    def run(
        self, ids: Sequence[str], patches: object = None, trace: bool = False, **limits: object
    ) -> RunResult:
        if "test_p.py::test_slow" in ids:
            self.runs.append(list(ids))
            return RunResult({}, {}, problem="the tests did not finish within 60 s", seconds=60.0)
        return super().run(ids, patches, trace, **limits)


def test_a_baseline_that_does_not_finish_with_the_neighbours_reruns_the_failures_alone() -> None:
    # more-itertools: one neighbour (9,839 prime cases) took longer than --heal-timeout, the
    # whole traced rerun stopped, and none of the module's bugs could be healed.
    failing, runner = cases(2), Slow()

    run, _, alone = regression.fitted(runner, failing, ["test_p.py::test_slow"])  # type: ignore[arg-type]

    assert alone and run.problem is None
    assert runner.runs[-1] == [c.nodeid for c in failing]
    assert run.seconds == 61.0
    assert regression.fitted(Recorded(), failing, ["test_p.py::test_ok"])[2] is False  # type: ignore[arg-type]
