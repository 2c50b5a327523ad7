"""The chain of repairers, with fake repairers and a fake check: who is asked, in which order,
what decides, what a failed link leaves in the result, and what a repair costs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.problem import Failed, Healed, Limits, Problem, Task
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.repair.chain import Chain
from pytest_caretaker.repair.check import Prover
from pytest_caretaker.repair.memory import FixMemory, RememberedFixes
from pytest_caretaker.results import (
    Accepted,
    Candidate,
    Doubt,
    Edit,
    Executed,
    Failure,
    FileChange,
    Frame,
    Proposal,
    Spend,
    Verdict,
)
from pytest_caretaker.settings import Scope
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.runner import Outcome, RunResult

CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
GOOD = "def mean(xs):\n    return sum(xs) / len(xs)\n"
LEAD = Failure("test_calc.py::test_mean", "call", "test_calc.py", "AssertionError", "", "", ())
SUSPECTS = (Suspect("calc.py", "mean", False, 1.0),)
VERDICT = Verdict(True, passed=frozenset({LEAD.nodeid}))


def candidate(explanation: str = "n, not n + 1") -> Candidate:
    edit = Edit("replace", "calc.py", "mean", GOOD)
    return Candidate((edit,), (FileChange("calc.py", CALC.encode(), GOOD.encode()),), explanation)


@dataclass
class Fake:
    """A repairer that answers what it is told and notes that it was asked."""

    name: str
    outcome: Healed | Failed | BaseException
    asked: list[str] = field(default_factory=list)

    def repair(self, task: Task) -> Healed | Failed:
        self.asked.append(self.name)
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


class DictCache:
    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    def get(self, key: str, default: Any) -> Any:
        return self.data.get(key, default)

    def set(self, key: str, value: object) -> None:
        self.data[key] = value


def passing_check(
    problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
) -> Verdict:
    ok = b"len(xs)\n" in changes.get("calc.py", b"")
    return Verdict(ok, "" if ok else f"{problem.lead.nodeid} still fails", passed=frozenset())


@pytest.fixture
def files(tmp_path: Path) -> ProjectFiles:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text("from calc import mean\n")
    return ProjectFiles(tmp_path)


def chain(
    files: ProjectFiles,
    *repairers: Any,
    memory: FixMemory | None = None,
    executed: Mapping[str, Executed] | None = None,
) -> Chain:
    editable = Editable("code", files.root, TestFiles(frozenset({"test_calc.py"})))
    memory = memory if memory is not None else FixMemory(None)
    prover = Prover(editable, files, passing_check)
    return Chain(list(repairers), editable, prover, memory, files, executed or {}, 0.1)


def test_the_first_repairer_that_heals_decides_and_the_rest_are_not_asked(
    files: ProjectFiles,
) -> None:
    asked: list[str] = []
    first = Fake("builtin", Healed(candidate(), Spend(candidates=3), "builtin", VERDICT), asked)
    second = Fake("some/model", Failed("never asked"), asked)

    repaired = chain(files, first, second).repair(Problem((LEAD,)), SUSPECTS)

    assert asked == ["builtin"]
    assert repaired.result.healed
    assert repaired.result.repairer == "builtin"
    assert repaired.result.spend.candidates == 3
    assert repaired.result.fallbacks == ()
    assert repaired.passed == VERDICT.passed


def test_a_link_that_cannot_work_passes_the_problem_on_and_is_told_as_a_fallback(
    files: ProjectFiles,
) -> None:
    asked: list[str] = []
    first = Fake("a/model", Failed("model error: 500"), asked)
    second = Fake("b/model", Healed(candidate(), Spend(rounds=1), "b/model", VERDICT), asked)

    result = chain(files, first, second).repair(Problem((LEAD,)), SUSPECTS).result

    assert asked == ["a/model", "b/model"]
    assert result.healed
    assert result.repairer == "b/model"
    assert result.fallbacks == ("a/model: model error: 500",)


def test_a_decisive_failure_ends_the_chain_with_its_own_reason(files: ProjectFiles) -> None:
    asked: list[str] = []
    first = Fake("a/model", Failed("fix broke t::b", decisive=True), asked)
    second = Fake("b/model", Healed(candidate(), Spend(), "b/model", VERDICT), asked)

    result = chain(files, first, second).repair(Problem((LEAD,)), SUSPECTS).result

    assert asked == ["a/model"]
    assert not result.healed
    assert result.reason == "fix broke t::b"
    assert result.repairer == "a/model"


def test_when_every_link_fails_the_reason_names_each_and_why(files: ProjectFiles) -> None:
    links = [Fake("builtin", Failed("tried all 12 candidate edits")), Fake("a/m", Failed("x"))]

    result = chain(files, *links).repair(Problem((LEAD,)), SUSPECTS).result

    assert result.reason == "builtin: tried all 12 candidate edits; then a/m: x"
    assert result.fallbacks == ()  # fallbacks are told on a fix, which there is not


def test_one_failing_link_keeps_its_reason_unprefixed(files: ProjectFiles) -> None:
    result = chain(files, Fake("a/m", Failed("model error: timeout"))).repair(
        Problem((LEAD,)), SUSPECTS
    )

    assert result.result.reason == "model error: timeout"


def test_a_long_fallback_reason_is_cut(files: ProjectFiles) -> None:
    first = Fake("a/model", Failed("x" * 500))
    second = Fake("b/model", Healed(candidate(), Spend(rounds=1), "b/model", VERDICT))

    (fallback,) = chain(files, first, second).repair(Problem((LEAD,)), SUSPECTS).result.fallbacks

    assert len(fallback) == 160
    assert fallback.endswith("…")


def test_tokens_and_dollars_add_up_over_the_links_and_rounds_are_the_deciders(
    files: ProjectFiles,
) -> None:
    first = Fake("a/m", Failed("did not parse", Spend(rounds=3, prompt_tokens=900, cost=0.5)))
    second = Fake(
        "b/m",
        Healed(
            candidate(), Spend(rounds=1, prompt_tokens=100, completion_tokens=10), "b/m", VERDICT
        ),
    )

    spend = chain(files, first, second).repair(Problem((LEAD,)), SUSPECTS).result.spend

    assert (spend.rounds, spend.prompt_tokens, spend.completion_tokens) == (1, 1000, 10)
    assert spend.cost == 0.5
    assert spend.seconds > 0


def test_a_repairer_that_raises_is_a_reason_for_this_problem_not_a_crash(
    files: ProjectFiles,
) -> None:
    repaired = chain(files, Fake("builtin", RuntimeError("boom"))).repair(
        Problem((LEAD,)), SUSPECTS
    )

    assert repaired.result.reason.startswith("caretaker failed on this test: RuntimeError('boom')")
    assert repaired.result.reason.endswith("; please report it")
    assert "## Internal error" in repaired.log.render(LEAD, repaired.result)


def test_nothing_editable_asks_no_repairer(files: ProjectFiles) -> None:
    asked: list[str] = []
    only_the_test = (Suspect("test_calc.py", "test_mean", True, 1.0),)
    ran = {LEAD.nodeid: Executed(functions=(("test_calc.py", 4),))}  # the trace saw the test

    result = chain(files, Fake("builtin", Failed("x"), asked), executed=ran).repair(
        Problem((LEAD,)), only_the_test
    )

    assert asked == []
    assert result.result.reason.startswith("the failure is in test code")


def test_a_test_no_trace_saw_is_not_said_to_have_run_no_code_under_test(
    files: ProjectFiles,
) -> None:
    # The rerun did not trace the test: what it ran is not known, and none of it is claimed.
    only_the_test = (Suspect("test_calc.py", "test_mean", True, 1.0),)

    result = chain(files, Fake("builtin", Failed("x"))).repair(Problem((LEAD,)), only_the_test)

    assert "no code under test ran" not in result.result.reason
    assert result.result.reason.startswith(
        "its traceback shows no code under test, and caretaker's rerun of the test traced nothing"
    )


@pytest.mark.parametrize(("scope", "asks"), [("code", False), ("tests", True), ("any", True)])
def test_a_failure_that_is_the_tests_own_asks_no_repairer_unless_tests_may_change(
    files: ProjectFiles, scope: Scope, asks: bool
) -> None:
    # The code under test ran first (it is a suspect), then the test's own line failed (#46).
    (files.root / "test_calc.py").write_text(
        "from calc import mean\n\n\ndef test_mean():\n    assert mean([1]) == expeted\n"
    )
    frame = Frame("test_calc.py", 5, "test_mean")
    failure = replace(
        LEAD, exc_type="NameError", message="name 'expeted' is not defined", frames=(frame,)
    )
    asked: list[str] = []
    editable = Editable(scope, files.root, TestFiles(frozenset({"test_calc.py"})))
    chained = replace(chain(files, Fake("builtin", Failed("x"), asked)), editable=editable)

    suspects = (Suspect("test_calc.py", "test_mean", True, 1.0), *SUSPECTS)
    result = chained.repair(Problem((failure,)), suspects).result

    assert asked == (["builtin"] if asks else [])
    said = "the failure is in test code: line 5 of test_calc.py uses `expeted`"
    assert result.reason.startswith(said) is not asks


def test_a_fix_is_remembered_and_the_next_chain_heals_from_it_with_no_repairer(
    files: ProjectFiles,
) -> None:
    memory = FixMemory(DictCache())
    first = Fake("a/model", Healed(candidate(), Spend(rounds=1), "a/model", VERDICT))
    chain(files, first, memory=memory).repair(Problem((LEAD,)), SUSPECTS)
    asked: list[str] = []
    remembered = RememberedFixes(memory, files)
    later = chain(files, remembered, Fake("a/model", Failed("x"), asked), memory=memory)

    repaired = later.repair(Problem((LEAD,)), SUSPECTS)

    assert asked == []
    assert repaired.result.via == "cache"
    assert repaired.result.repairer == "a/model"  # the model that first found it
    assert repaired.result.spend.tokens == 0
    assert "Remembered fix (first found by a/model)" in repaired.log.render(None, repaired.result)


def test_an_unsure_fix_is_not_remembered(files: ProjectFiles) -> None:
    # A later run would replay it from memory as a plain HEALED, its doubt lost.
    memory = FixMemory(DictCache())
    doubt = Doubt("another fix passes them too", "mean([])", "raises ZeroDivisionError")
    unsure = replace(candidate(), doubt=doubt)
    first = Fake("builtin", Healed(unsure, Spend(), "builtin", VERDICT))
    assert chain(files, first, memory=memory).repair(Problem((LEAD,)), SUSPECTS).result.unsure
    asked: list[str] = []
    later = chain(files, RememberedFixes(memory, files), Fake("a/model", Failed("x"), asked))

    repaired = later.repair(Problem((LEAD,)), SUSPECTS)

    assert asked == ["a/model"]
    assert repaired.result.via != "cache"


def test_no_remembered_fix_is_no_fallback(files: ProjectFiles) -> None:
    remembered = RememberedFixes(FixMemory(DictCache()), files)
    model = Fake("a/model", Failed("model error: 500"))

    result = chain(files, remembered, model).repair(Problem((LEAD,)), SUSPECTS).result

    assert result.reason == "model error: 500"  # not "cache: ; then a/model: …"


def test_the_prover_refuses_before_the_check_runs(files: ProjectFiles) -> None:
    checked: list[Mapping[str, bytes]] = []

    def check(
        problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict:
        checked.append(changes)
        return Verdict(True)

    editable = Editable("code", files.root, TestFiles(frozenset({"test_calc.py"})))
    prove = Prover(editable, files, check)
    into_the_test = Edit("replace", "test_calc.py", "test_mean", "def test_mean():\n    pass\n")
    unchanged = Edit("replace", "calc.py", "mean", CALC)

    refused = prove(Problem((LEAD,)), Proposal((into_the_test,), ""))
    same = prove(Problem((LEAD,)), Proposal((unchanged,), ""))
    accepted = prove(Problem((LEAD,)), Proposal((Edit("replace", "calc.py", "mean", GOOD),), "e"))

    assert not isinstance(refused, Accepted)
    assert refused.reason.startswith("fix refused: the fix edits test code (test_calc.py)")
    assert not isinstance(same, Accepted)
    assert same.reason == "fix changes nothing: the code it proposes is the code as it is"
    assert isinstance(accepted, Accepted)
    assert checked == [{"calc.py": GOOD.encode()}]  # only the fix that got past the guards ran


def test_every_repair_of_a_session_spends_from_the_same_limits(files: ProjectFiles) -> None:
    seen: list[Limits] = []

    @dataclass
    class Spender:
        name: str = "a/model"

        def repair(self, task: Task) -> Healed | Failed:
            seen.append(task.limits)
            task.limits.charge(0.25)
            return Failed("model error: 500")

    limits = Limits(budget=0.4)
    editable = Editable("code", files.root, TestFiles(frozenset({"test_calc.py"})))
    session = Chain(
        [Spender()],
        editable,
        Prover(editable, files, passing_check),
        FixMemory(None),
        files,
        {},
        0.1,
        limits,
    )

    session.repair(Problem((LEAD,)), SUSPECTS)
    session.repair(Problem((LEAD,)), SUSPECTS)

    assert seen == [limits, limits]
    assert limits.stop(Spend()) == (
        "the --heal-budget of $0.40 is spent ($0.5000 used); raise it to heal the rest"
    )


def test_a_problems_token_cap_holds_over_the_whole_chain(files: ProjectFiles) -> None:
    # --heal-max-tokens is per problem (#34): a second model starts with what the first spent.
    told: list[str | None] = []

    @dataclass
    class Spender:
        name: str

        def repair(self, task: Task) -> Healed | Failed:
            told.append(task.limits.stop(Spend(), task.earlier_tokens))
            task.limits.charge(0.0, 3_000)
            return Failed("model error: 500", Spend(rounds=1, prompt_tokens=3_000))

    limits = Limits(max_tokens=5_000)
    editable = Editable("code", files.root, TestFiles(frozenset({"test_calc.py"})))
    chain = Chain(
        [Spender("a/one"), Spender("b/two"), Spender("c/three")],
        editable,
        Prover(editable, files, passing_check),
        FixMemory(None),
        files,
        {},
        0.1,
        limits,
    )

    chain.repair(Problem((LEAD,)), SUSPECTS)

    assert told == [
        None,
        None,
        "this problem used 6,000 tokens, the cap is 5,000 (raise it with --heal-max-tokens)",
    ]


def test_a_sessions_token_cap_stops_every_repair() -> None:
    limits = Limits(session_tokens=10_000)
    limits.charge(0.01, 6_000)
    assert limits.stop(Spend()) is None
    limits.charge(0.01, 4_000)
    assert limits.stop(Spend()) == (
        "the session used 10,000 tokens, the cap is 10,000 (raise it with --heal-session-tokens)"
    )


@pytest.mark.parametrize(
    ("outcomes", "reason"),
    [
        pytest.param(
            {"t.py::test_a": Outcome("skipped")},
            "t.py::test_a is skipped under the fix, and a skip is no pass",
            id="the-lead-skips",
        ),
        pytest.param(
            {"t.py::test_a": Outcome("passed"), "t.py::test_b": Outcome("skipped")},
            "fix broke t.py::test_b",
            id="a-neighbour-that-passed",
        ),
        pytest.param(
            {"t.py::test_a": Outcome("failed", "E   assert 1 == 2")},
            "t.py::test_a still fails",
            id="a-failure-with-its-report",
        ),
        pytest.param(
            {"t.py::test_a": Outcome("passed")},
            "fix broke t.py::test_b (it did not run)",
            id="did-not-run",
        ),
    ],
)
def test_a_test_that_skips_under_a_fix_is_said_to_skip(
    outcomes: dict[str, Outcome], reason: str
) -> None:
    # A skip is the one outcome that brings no report: the judge says so (#34).
    verdict = judge(RunResult(outcomes, {}), ["t.py::test_a"], ["t.py::test_b"])
    assert not verdict.ok and verdict.reason == reason


def test_an_unsure_fix_is_not_remembered_for_the_cases_it_heals_too(
    files: ProjectFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_caretaker.repair import cluster

    monkeypatch.setattr(cluster, "localize", lambda *args: list(SUSPECTS))  # no trace here
    other = replace(LEAD, nodeid="test_calc.py::test_mean_again")
    memory = FixMemory(DictCache())
    doubt = Doubt("another fix passes them too", "mean([])", "raises ZeroDivisionError")
    both = Verdict(True, passed=frozenset({LEAD.nodeid, other.nodeid}))
    first = Fake("builtin", Healed(replace(candidate(), doubt=doubt), Spend(), "builtin", both))
    baseline = RunResult({LEAD.nodeid: Outcome("failed"), other.nodeid: Outcome("failed")}, {})

    results, left = cluster.solve(
        Problem((LEAD, other)), baseline, chain(files, first, memory=memory), {}
    )

    assert [(r.nodeid, r.unsure) for r in results] == [(LEAD.nodeid, True), (other.nodeid, True)]
    assert left == [] and results[1].via == "shared"
    assert memory.entries == {}  # neither the lead nor the case it heals too
