"""The built-in repairer's own decisions: ranking, the fallback without trials, the budget."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_caretaker.builtin.repairer import BuiltinRepairer
from pytest_caretaker.builtin.search import pairs
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.problem import Failed, Healed, Problem, Task
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import Candidate, Failure, Rejected, Spend, Verdict
from pytest_caretaker.settings import Scope
from pytest_caretaker.verify import trials
from pytest_caretaker.verify.check import PytestCheck
from pytest_caretaker.verify.runner import Runner, RunResult
from pytest_caretaker.verify.trials import Trials

CALC = """\
def mean(xs):
    if not xs:
        return 0
    return sum(xs) / (len(xs) + 1)


def spin(n):
    while n != 0:
        n = n - 2
    return n
"""
TESTS = """\
from calc import mean, spin


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_empty():
    assert mean([]) == 0


def test_spin():
    assert spin(3) == 0
"""
MEAN, EMPTY, SPIN = "test_calc.py::test_mean", "test_calc.py::test_empty", "test_calc.py::test_spin"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("builtin").resolve()
    root.joinpath("calc.py").write_text(CALC)
    root.joinpath("test_calc.py").write_text(TESTS)
    return root


@pytest.fixture(scope="module")
def runner(project: Path) -> Iterator[Runner]:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    with Runner(project, project, args, timeout=30.0) as runner:
        yield runner


@pytest.fixture(scope="module")
def baseline(runner: Runner) -> RunResult:
    return runner.run([MEAN, EMPTY], trace=True)


def repairer(
    runner: Runner, with_trials: bool, budget: float = 20.0, scope: Scope = "code"
) -> BuiltinRepairer:
    tests = TestFiles(frozenset({"test_calc.py"}))
    server = Trials.start(runner, [MEAN, EMPTY, SPIN]) if with_trials else None
    editable = Editable(scope, runner.root, tests)
    files = ProjectFiles(runner.root)
    return BuiltinRepairer(runner, PytestCheck(runner), server, files, editable, budget)


def task(baseline: RunResult, regression: tuple[str, ...] = (EMPTY,)) -> Task:
    lead = Failure(MEAN, "call", "test_calc.py", "AssertionError", "assert", "", ())
    return Task(
        Problem((lead,), regression),
        (),
        baseline.executed,
        baseline.seconds,
        lambda proposal: Rejected("the built-in repairer proves its own candidates"),
        Transcript(MEAN),
    )


def test_the_line_only_the_failing_test_ran_is_tried_first(
    runner: Runner, baseline: RunResult
) -> None:
    ranked = repairer(runner, with_trials=False).candidates(MEAN, baseline.executed, [EMPTY])

    assert ranked
    assert {m.path for m in ranked} == {"calc.py"}  # never the test file under scope=code
    assert ranked[0].line == 4  # `return sum(xs) / ...`: test_empty returns before it
    assert {m.line for m in ranked} <= {2, 3, 4}  # only lines test_mean ran (not spin, not 3)
    assert 3 not in {m.line for m in ranked}  # `return 0` did not run in test_mean


@pytest.mark.parametrize(
    "with_trials",
    [
        pytest.param(True, marks=pytest.mark.skipif(not trials.AVAILABLE, reason="no fork")),
        False,
    ],
    ids=["trials", "ordinary verifier"],
)
def test_the_same_plausible_fix_with_or_without_trials(
    runner: Runner, baseline: RunResult, with_trials: bool
) -> None:
    builtin = repairer(runner, with_trials)
    try:
        result = builtin.repair(task(baseline))
    finally:
        builtin.close()

    assert isinstance(result, Healed), result
    assert result.by == "builtin"
    assert result.spend.candidates == 1  # the likeliest edit of the likeliest line
    assert result.spend.rounds == 0  # no model was asked
    (applied,) = result.candidate.changes
    assert applied.after == CALC.replace("(len(xs) + 1)", "len(xs)").encode()
    (edit,) = result.candidate.edits
    assert (edit.path, edit.qualname, edit.kind) == ("calc.py", "mean", "replace")
    assert edit.source.startswith("def mean(xs):")
    # Weighed beyond the tests where trials run (a fix, not only a plausible one); else not.
    said = "Fix by the built-in repairer" if with_trials else "Plausible fix by the built-in"
    assert result.candidate.explanation.startswith(said), result.candidate.explanation
    assert ("Beyond the failing tests it was run" in result.candidate.explanation) is with_trials
    assert {MEAN, EMPTY} <= result.verdict.passed  # the proof ran the case and its neighbour


@pytest.mark.skipif(not trials.AVAILABLE, reason="no fork")
@pytest.mark.parametrize("share", [0.1, 0.0])
def test_what_an_earlier_problem_rejected_keeps_its_rank_within_a_share_of_the_budget(
    runner: Runner, baseline: RunResult, share: float
) -> None:
    builtin = repairer(runner, with_trials=True)
    builtin.stale_share = share
    ranked = builtin.candidates(MEAN, baseline.executed, [EMPTY])
    two = pairs(ranked, lambda path: CALC)
    # As if earlier problems of the session had tried these on their own cases: the three best
    # (the first is the fix), or, with no share for them, every candidate.
    builtin.failed.update(ranked[:3] if share else ranked + two)
    try:
        result = builtin.repair(task(baseline))
    finally:
        builtin.close()

    if share:  # tried in this problem's rank order while the share lasts: a second bug's fix
        # is not put off behind every other candidate
        assert isinstance(result, Healed), result
        assert result.spend.candidates == 1
        (applied,) = result.candidate.changes
        assert applied.after == CALC.replace("(len(xs) + 1)", "len(xs)").encode()
    else:  # no time for them: the search says so
        assert isinstance(result, Failed), result
        assert result.reason.startswith(
            f"the built-in repairer tried 0 of {len(ranked) + len(two)} candidate edits in "
        )
        assert (
            f", leaving out {len(ranked) + len(two)} edits that failed the case of an earlier "
            "problem in this session; none made the test pass without breaking another"
        ) in result.reason


def test_a_spent_budget_stops_the_search(runner: Runner, baseline: RunResult) -> None:
    # The work of a thousandth of a second: ten candidates generated (work.py), none tried.
    builtin = repairer(runner, with_trials=False, budget=0.001)

    result = builtin.repair(task(baseline))

    assert isinstance(result, Failed)
    assert result.reason.startswith(
        "the built-in repairer's budget of 0.001 s ran out while generating candidate edits "
        "(10 generated)"
    )
    assert result.spend.candidates == 0
    assert not result.decisive  # what it cannot repair goes to the next link of the chain


def test_nothing_to_edit_is_said_so(runner: Runner, project: Path) -> None:
    # A failing test that ran no project code outside the test file.
    empty = RunResult(outcomes={}, executed={})

    result = repairer(runner, with_trials=False).repair(task(empty, ()))

    assert isinstance(result, Failed)
    assert result.reason == (
        "the built-in repairer found nothing it may edit in the code the test ran "
        "(it never edits tests)"
    )


def test_tests_are_never_edited_whatever_the_scope(runner: Runner, baseline: RunResult) -> None:
    # Under --heal-scope=any a model may edit tests; deleting a failing assert is no fix, so the
    # built-in repairer never proposes an edit to a test file.
    builtin = repairer(runner, with_trials=False, scope="any")

    ranked = builtin.candidates(MEAN, baseline.executed, [EMPTY])

    assert ranked
    assert {m.path for m in ranked} == {"calc.py"}


SHARED = """\
RATE = 3


def price(n):
    return n * RATE


def total(items):
    return sum(price(n) for n in items) + RATE * 0
"""
TEST_SHARED = """\
from shop import price, total


def test_price():
    assert price(2) == 4


def test_total():
    assert total([1, 1]) == 4
"""


def test_a_constant_read_by_two_suspects_is_tried_once_per_edit(tmp_path: Path) -> None:
    tmp_path.joinpath("shop.py").write_text(SHARED)
    tmp_path.joinpath("test_shop.py").write_text(TEST_SHARED)
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(tmp_path)]
    failing = ["test_shop.py::test_price", "test_shop.py::test_total"]
    with Runner(tmp_path, tmp_path, args, timeout=30.0) as runner:
        baseline = runner.run(failing, trace=True)
        tests = TestFiles(frozenset({"test_shop.py"}))
        builtin = BuiltinRepairer(
            runner,
            PytestCheck(runner),
            None,
            ProjectFiles(runner.root),
            Editable("code", runner.root, tests),
            20.0,
        )
        ranked = builtin.candidates(failing[1], baseline.executed, [])

    edits = [(m.path, m.start, m.end, m.replacement) for m in ranked]
    assert len(edits) == len(set(edits))
    assert any(m.replacement == "2" and m.path == "shop.py" for m in ranked)  # RATE = 2 is there


def test_a_fix_proved_by_another_problem_while_this_one_waited_is_taken_without_a_search(
    runner: Runner, baseline: RunResult
) -> None:
    given = Healed(Candidate((), ()), Spend(), "builtin", Verdict(True), via="shared")
    builtin = repairer(runner, with_trials=False)
    waited = replace(task(baseline), proved_since=lambda: given)
    nothing = replace(task(baseline), proved_since=lambda: Failed(""))

    assert builtin.repair(waited) is given  # no search: its lock was held by the one that found it
    searched = builtin.repair(nothing)
    assert isinstance(searched, Healed) and searched.spend.candidates > 0
