"""Fixes proved earlier in the session, tried first on the next problems (repair/proved.py): a
fix found once heals the other problems of its root cause without a search, at the cost of one
survey run, and is not proposed where it cannot help."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from helpers import Recorded

from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.problem import Failed, Healed, Problem, Task
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.repair.chain import Chain
from pytest_caretaker.repair.check import Prover
from pytest_caretaker.repair.memory import FixMemory
from pytest_caretaker.repair.proved import ProvedFixes, changed_lines
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import (
    Accepted,
    Candidate,
    Doubt,
    Edit,
    Executed,
    Failure,
    FileChange,
    HealResult,
    Proposal,
    Rejected,
    Spend,
    Verdict,
)
from pytest_caretaker.verify.check import AGAIN, PytestCheck

CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n\n\ndef other():\n    return 0\n"
GOOD = "def mean(xs):\n    return sum(xs) / len(xs)\n"
SUSPECTS = (Suspect("calc.py", "mean", False, 1.0),)
A, B, C = "test_a.py::test_mean", "test_b.py::test_average", "test_c.py::test_other"
RAN_MEAN = Executed(lines={"calc.py": frozenset({1, 2})})
RAN_OTHER = Executed(lines={"calc.py": frozenset({5, 6})})


def case(nodeid: str, exc_type: str = "AssertionError") -> Failure:
    return Failure(nodeid, "call", nodeid.split("::")[0], exc_type, "", "", ())


class Searching:
    """The search a problem would cost: heals with the good mean(), counting who asked."""

    name = "builtin"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def repair(self, task: Task) -> Healed | Failed:
        self.asked.append(task.problem.lead.nodeid)
        edit = Edit("replace", "calc.py", "mean", GOOD)
        decided = task.prove(Proposal((edit,), "len(xs), not len(xs) + 1"))
        if isinstance(decided, Rejected):
            return Failed(decided.reason, decisive=True)
        return Healed(decided.candidate, Spend(candidates=7), self.name, decided.verdict)


@pytest.fixture
def files(tmp_path: Path) -> ProjectFiles:
    (tmp_path / "calc.py").write_text(CALC)
    return ProjectFiles(tmp_path)


def session(
    files: ProjectFiles, runner: Recorded, executed: dict[str, Executed], passing: list[str]
) -> tuple[Chain, Searching]:
    tests = TestFiles(frozenset({"test_a.py", "test_b.py", "test_c.py"}))
    editable = Editable("code", files.root, tests)
    check = PytestCheck(cast(Any, runner))
    proved = ProvedFixes(check.survey, sorted(executed), passing, executed)
    search = Searching()
    prover = Prover(editable, files, check)
    chain = Chain([search], editable, prover, FixMemory(None), files, executed, 0.1, proved=proved)
    return chain, search


def test_the_next_problem_of_a_root_cause_is_healed_by_the_fix_without_a_search_or_a_run(
    files: ProjectFiles,
) -> None:
    runner = Recorded()
    executed = {A: RAN_MEAN, B: RAN_MEAN}
    chain, search = session(files, runner, executed, ["test_b.py::test_ok", "test_z.py::test_ok"])

    first = chain.repair(Problem((case(A),), ("test_a.py::test_ok",)), SUSPECTS)
    runs = len(runner.runs)
    second = chain.repair(Problem((case(B, "KeyError"),), ("test_b.py::test_ok",)), SUSPECTS)

    assert search.asked == [A]  # one search for the root cause
    # The proof of A (then its case again, alone), then one survey: B and the passing tests of
    # its module, no other module.
    assert runs == 2 + AGAIN and runner.runs[1:-1] == [[A]] * AGAIN
    assert runner.runs[-1] == [B, "test_b.py::test_ok"]
    assert len(runner.runs) == runs  # B's proof ran nothing the survey had shown
    assert first.result.healed and second.result.healed
    assert second.result.via == "shared" and second.result.shared_with == A
    assert second.result.repairer == "builtin"
    assert second.result.changes == first.result.changes
    assert f"The fix found for {A} in this session" in second.log.render(case(B), second.result)


def test_a_fix_of_lines_the_problem_never_ran_is_not_proposed(files: ProjectFiles) -> None:
    runner = Recorded()
    chain, search = session(files, runner, {A: RAN_MEAN, C: RAN_OTHER}, [])

    chain.repair(Problem((case(A),)), SUSPECTS)
    third = chain.repair(Problem((case(C),)), SUSPECTS)

    assert search.asked == [A, C]  # C searched on its own
    assert runner.runs == [[A]] * (1 + AGAIN) + [[C]] * (
        1 + AGAIN
    )  # and A's fix was neither surveyed on C nor proved for it
    assert third.result.via == "repair"


def test_a_fix_the_survey_saw_leave_a_lead_failing_is_not_proposed_to_it(
    files: ProjectFiles,
) -> None:
    runner = Recorded(fails={B})
    chain, search = session(files, runner, {A: RAN_MEAN, B: RAN_MEAN}, [])

    chain.repair(Problem((case(A),)), SUSPECTS)
    second = chain.repair(Problem((case(B),)), SUSPECTS)

    # The proof of A, the survey that saw B fail
    assert runner.runs[: 2 + AGAIN] == [[A]] * (1 + AGAIN) + [[B]]
    assert search.asked == [A, B]
    assert not second.result.healed
    assert "in this session" not in second.log.render(case(B), second.result)


def test_a_fix_is_proposed_to_a_problem_once_even_when_asked_again() -> None:
    proposed: list[Proposal] = []

    def prove(proposal: Proposal) -> Rejected:
        proposed.append(proposal)
        return Rejected("still fails")

    proved = ProvedFixes()
    change = FileChange("calc.py", CALC.encode(), CALC.replace("+ 1", "").encode())
    fix = Candidate((Edit("replace", "calc.py", "mean", GOOD),), (change,))
    proved.done(_healed(A, fix), [A])
    task = Task(Problem((case(B),)), SUSPECTS, {B: RAN_MEAN}, 0.1, prove, Transcript(B))

    assert isinstance(proved.repair(task), Failed)
    assert isinstance(proved.repair(task), Failed)  # a repairer asks again after its wait
    assert len(proposed) == 1


def test_the_lines_a_change_touches_with_those_beside_them() -> None:
    before = b"a\nb\nc\nd\ne\nf\ng\nh\n"
    replaced = FileChange("m.py", before, before.replace(b"d\n", b"D\n"))
    inserted = FileChange("n.py", before, before.replace(b"f\n", b"f\nnew\n"))

    lines = changed_lines([replaced, inserted])

    assert lines["m.py"] == frozenset({2, 3, 4, 5, 6})  # line 4, two on each side
    assert lines["n.py"] == frozenset({4, 5, 6, 7, 8, 9})  # between lines 6 and 7


def _healed(nodeid: str, candidate: Candidate) -> HealResult:
    return HealResult(nodeid, candidate, repairer="builtin")


def test_no_survey_without_cases_to_come(files: ProjectFiles) -> None:
    runner = Recorded()
    chain, _ = session(files, runner, {A: RAN_MEAN}, ["test_a.py::test_ok"])

    chain.repair(Problem((case(A),), ("test_a.py::test_ok",)), SUSPECTS)

    assert runner.runs == [[A, "test_a.py::test_ok"]] + [[A]] * AGAIN  # the proof, its case again


METHOD = (
    "class Stats:\n"
    "    def mean(self, xs):\n"
    '        """The mean.\n\n        Of xs.\n        """\n'
    "        return sum(xs) / (len(xs) + 1)\n"
)


def test_a_fix_proposed_again_is_the_change_proved_not_its_edits_applied_anew(
    tmp_path: Path,
) -> None:
    # Applying the edits anew costs a libcst parse of the module per problem (most of such a
    # proof in cachetools), and could differ from what was proved: the change is taken as
    # proved (told apart here by a comment the edits do not hold), while the file reads as its
    # before, and only for the files the guarded edits name.
    (tmp_path / "stats.py").write_text(METHOD)
    files = ProjectFiles(tmp_path)
    editable = Editable("code", tmp_path, TestFiles(frozenset({"test_stats.py"})))
    prover = Prover(editable, files, lambda problem, changes, timeout=None: Verdict(True))
    fixed = METHOD.replace("(len(xs) + 1)", "len(xs)")
    source = fixed.split("\n", 1)[1].replace("\n    ", "\n")[4:]  # the method, dedented
    edit = Edit("replace", "stats.py", "Stats.mean", source)
    proved = FileChange("stats.py", METHOD.encode(), (fixed + "# as proved\n").encode())
    problem = Problem((case("test_stats.py::test_mean"),))

    again = prover(problem, Proposal((edit,), "", changes=(proved,)))
    anew = prover(problem, Proposal((edit,), ""))
    elsewhere = FileChange("other.py", b"", b"x = 1\n")  # not a file its edits name
    smuggled = prover(problem, Proposal((edit,), "", changes=(proved, elsewhere)))
    older = FileChange("stats.py", METHOD.encode() + b"\n", proved.after)  # not the file now
    stale = prover(problem, Proposal((edit,), "", changes=(older,)))

    assert isinstance(again, Accepted) and again.candidate.changes == (proved,)
    assert isinstance(anew, Accepted) and anew.candidate.changes[0].after == fixed.encode()
    assert isinstance(smuggled, Accepted) and smuggled.candidate.changes == anew.candidate.changes
    assert isinstance(stale, Accepted) and stale.candidate.changes == anew.candidate.changes


class Doubting(Searching):
    """The search, finding a fix the tests cannot tell from another."""

    def repair(self, task: Task) -> Healed | Failed:
        found = super().repair(task)
        if isinstance(found, Failed):
            return found
        return replace(found, candidate=replace(found.candidate, doubt=DOUBT))


DOUBT = Doubt("the tests cannot tell `len(xs)` from `max(len(xs), 1)`", "mean([])")


def test_a_fix_shared_with_a_later_problem_keeps_its_doubt(files: ProjectFiles) -> None:
    runner = Recorded()
    chain, _ = session(files, runner, {A: RAN_MEAN, B: RAN_MEAN}, [])
    doubting = Doubting()
    chain = replace(chain, repairers=[doubting])

    first = chain.repair(Problem((case(A),)), SUSPECTS)
    second = chain.repair(Problem((case(B, "KeyError"),)), SUSPECTS)

    assert doubting.asked == [A]  # B took the fix found for A
    assert second.result.via == "shared" and second.result.shared_with == A
    assert first.result.unsure and second.result.unsure
    assert second.result.candidate is not None and second.result.candidate.doubt == DOUBT
