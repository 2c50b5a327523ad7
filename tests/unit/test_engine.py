"""The engine loop, in process: a fake runner stands in for the verification processes and fake
repairers for the chain, so what is tested is the loop itself: problems, sharing a fix among the
cases of one problem, the next problem of what a fix does not heal, the baseline, Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.engine import HealRun, heal_all
from pytest_caretaker.problem import Failed, Healed, Task
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.neighbours import NEIGHBOURS
from pytest_caretaker.repair.memory import KEY, FixMemory
from pytest_caretaker.results import Accepted, Edit, Executed, Failure, Frame, Proposal, Spend
from pytest_caretaker.settings import Settings
from pytest_caretaker.threads import in_threads
from pytest_caretaker.verify.runner import Outcome, RunResult

CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
GOOD = "def mean(xs):\n    return sum(xs) / len(xs)\n"
CALC_FRAME = Frame("calc.py", 2, "mean")
MEAN, FOUR, TOTAL = (f"test_calc.py::test_{name}" for name in ("mean", "four", "total"))


def failure(nodeid: str) -> Failure:
    return Failure(nodeid, "call", "test_calc.py", "AssertionError", "assert", "", ())


@dataclass
class FakeRunner:
    """Runs nothing: a case passes when the changes served for calc.py contain what it needs."""

    root: Path
    needs: Mapping[str, tuple[str, ...]]  # node id -> snippets calc.py must hold for it to pass
    breaks: Mapping[str, str] = field(default_factory=dict)  # node id -> a snippet that fails it
    timeout: float = 30.0
    problem: str | None = None
    uncollected: str = ""  # a collection error every run has (a module that cannot be imported)
    runs: list[tuple[tuple[str, ...], bool]] = field(default_factory=list)
    files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # a file -> its tests
    policy: object = None  # unconfined, as the verifier's runs are without a sandbox

    def run(
        self,
        nodeids: Sequence[str],
        patches: Mapping[str, bytes] | None = None,
        trace: bool = False,
        timeout: float | None = None,
    ) -> RunResult:
        self.runs.append((tuple(nodeids), trace))
        nodeids = list(dict.fromkeys(n for i in nodeids for n in self.files.get(i, (i,))))
        if self.problem is not None:
            return RunResult({}, {}, problem=self.problem)
        if self.uncollected:
            return RunResult({}, {}, collect_errors=(self.uncollected,))
        calc = (patches or {}).get("calc.py", CALC.encode()).decode()
        outcomes = {
            nodeid: Outcome("passed" if self._passes(nodeid, calc) else "failed")
            for nodeid in nodeids
        }
        ran = Executed((("calc.py", 1),), {"calc.py": frozenset({1, 2})})
        return RunResult(outcomes, {nodeid: ran for nodeid in nodeids} if trace else {})

    def _passes(self, nodeid: str, calc: str) -> bool:
        broken = self.breaks.get(nodeid)
        needed = self.needs.get(nodeid, ())
        return all(s in calc for s in needed) and not (broken and broken in calc)


@dataclass
class Proposer:
    """A repairer that proposes one function for the lead case, a different one each time."""

    name: str
    sources: list[str]
    asked: list[str] = field(default_factory=list)

    def repair(self, task: Task) -> Healed | Failed:
        self.asked.append(task.problem.lead.nodeid)
        source = self.sources.pop(0)
        decided = task.prove(Proposal((Edit("replace", "calc.py", "mean", source),), "because"))
        if isinstance(decided, Accepted):
            return Healed(decided.candidate, Spend(rounds=1), self.name, decided.verdict)
        return Failed(decided.reason, Spend(rounds=1), decisive=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text("from calc import mean\n")
    return tmp_path


def heal(runner: FakeRunner, failing: Sequence[str], *repairers: Proposer, **settings: object):  # type: ignore[no-untyped-def]
    run = HealRun(
        settings=Settings(heal=True, **settings),  # type: ignore[arg-type]
        runner=runner,  # type: ignore[arg-type]
        failures=[failure(nodeid) for nodeid in failing],
        passed=[TOTAL],
        test_files=frozenset({"test_calc.py"}),
        repairers=list(repairers),
    )
    return heal_all(run)


def test_one_fix_heals_every_case_of_its_problem_with_one_repair(project: Path) -> None:
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",), FOUR: ("len(xs)\n",)})
    model = Proposer("some/model", [GOOD])

    outcome = heal(runner, [FOUR, MEAN], model)

    assert model.asked == [FOUR]  # one problem, led by its first case
    by_id = {result.nodeid: result for result in outcome.results}
    assert by_id[FOUR].healed and by_id[FOUR].via == "repair"
    assert by_id[MEAN].healed and by_id[MEAN].via == "shared"
    assert by_id[MEAN].shared_with == FOUR
    assert by_id[MEAN].spend.tokens == 0
    assert "## One root cause" in outcome.transcripts[MEAN].render(None, by_id[MEAN])
    # The check that proved the fix ran both cases and the passing neighbour: no second run.
    proving = [ids for ids, trace in runner.runs if not trace and set(ids) >= {FOUR, MEAN}]
    assert proving and TOTAL in proving[0]
    assert (
        outcome.patch is not None and b"+    return sum(xs) / len(xs)" in outcome.patch.read_bytes()
    )


def test_a_case_the_fix_does_not_heal_is_the_next_problem(project: Path) -> None:
    # Two bugs behind one cluster key: the first fix heals test_four (the lead) only.
    better = "def mean(xs):\n    # and the means\n    return sum(xs) / len(xs)\n"
    runner = FakeRunner(project, {FOUR: ("len(xs)\n",), MEAN: ("len(xs)\n", "means")})
    model = Proposer("some/model", [GOOD, better])

    outcome = heal(runner, [MEAN, FOUR], model)

    assert model.asked == [FOUR, MEAN]
    by_id = {result.nodeid: result for result in outcome.results}
    assert by_id[FOUR].healed and by_id[FOUR].via == "repair"
    # Both fixes rewrite the same line of mean(): the patch can deliver one of them, and a test
    # is healed only if the patch heals it.
    assert not by_id[MEAN].healed
    assert by_id[MEAN].reason == (
        "its fix is left out of the patch: it changes the same lines as the fix for "
        "test_calc.py::test_four"
    )


def test_of_two_clashing_fixes_the_one_that_heals_more_tests_is_kept(project: Path) -> None:
    # Three cases fail; the lead's fix heals only the lead, the next one's heals the other two.
    other = "def mean(xs):\n    return sum(xs) / max(len(xs), 1)\n"
    runner = FakeRunner(
        project, {FOUR: ("len(xs)\n",), MEAN: ("max(",), TOTAL + "_2": ("max(",), TOTAL: ()}
    )
    model = Proposer("some/model", [GOOD, other])

    outcome = heal(runner, [FOUR, MEAN, TOTAL + "_2"], model)

    healed = sorted(result.nodeid for result in outcome.results if result.healed)
    assert healed == [MEAN, TOTAL + "_2"]
    assert outcome.patch is not None and b"max(len(xs), 1)" in outcome.patch.read_bytes()


def test_a_failure_that_passes_alone_is_not_repaired(project: Path) -> None:
    runner = FakeRunner(project, {})  # everything passes when rerun
    model = Proposer("some/model", [GOOD])

    (result,) = heal(runner, [MEAN], model).results

    assert model.asked == []
    assert result.reason == "the test passes when rerun alone (flaky or order-dependent)"


def test_a_baseline_that_cannot_run_ends_every_failure_with_why(project: Path) -> None:
    runner = FakeRunner(project, {}, problem="the tests did not finish within 60 s")

    results = heal(runner, [MEAN, FOUR], Proposer("m", [])).results

    assert [r.reason for r in results] == [
        "the failing tests could not be rerun: the tests did not finish within 60 s"
    ] * 2


def test_a_failing_test_the_rerun_cannot_collect_is_said_so_and_nobody_is_asked(
    project: Path,
) -> None:
    # Not "no code under test ran": nothing is known of what it ran.
    error = (
        "test_calc.py:1: in <module>\n    import calcpkg\ncalcpkg/__init__.py:7: in _version\n"
        "E   PermissionError: [Errno 13] Permission denied: '/p/.git/HEAD'"
    )
    model = Proposer("some/model", [GOOD])

    results = heal(FakeRunner(project, {}, uncollected=error), [MEAN, FOUR], model).results

    assert model.asked == []
    assert [r.reason for r in results] == [
        "the failing test could not be rerun: collecting it failed in caretaker's process "
        "(PermissionError: [Errno 13] Permission denied: '/p/.git/HEAD'); if the sandbox "
        "refuses a read the tests need, --heal-sandbox off runs them unconfined"
    ] * 2


def test_ctrl_c_keeps_what_was_done_and_says_what_was_not(project: Path) -> None:
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",), TOTAL: ()})

    class Interrupted(Proposer):
        def repair(self, task: Task) -> Healed | Failed:
            raise KeyboardInterrupt

    outcome = heal(runner, [MEAN], Interrupted("m", []))

    assert outcome.notes == ["caretaker: healing interrupted; 0 of 1 failures were done"]
    (result,) = outcome.results
    assert result.reason == "not attempted: healing was interrupted (Ctrl-C)"


def test_ctrl_c_during_the_baseline_still_reports(project: Path) -> None:
    class Stopped(FakeRunner):
        def run(self, *args: Any, **kwargs: Any) -> RunResult:
            raise KeyboardInterrupt

    outcome = heal(Stopped(project, {}), [MEAN, FOUR], Proposer("m", []))

    assert outcome.notes == ["caretaker: healing interrupted; 0 of 2 failures were done"]
    assert [r.reason for r in outcome.results] == [
        "not attempted: healing was interrupted (Ctrl-C)"
    ] * 2


def test_what_the_session_budget_does_not_reach_is_not_attempted(project: Path) -> None:
    # Two root causes (different frames); the first repair takes longer than the whole budget.
    first = Failure(FOUR, "call", "test_calc.py", "ZeroDivisionError", "", "", (CALC_FRAME,))
    second = Failure(MEAN, "call", "test_calc.py", "KeyError", "", "", (CALC_FRAME,))
    runner = FakeRunner(project, {FOUR: ("len(xs)\n",), MEAN: ("not in any fix",)})

    class Slow(Proposer):
        def repair(self, task: Task) -> Healed | Failed:
            time.sleep(0.3)
            return super().repair(task)

    model = Slow("m", [GOOD, GOOD])
    run = HealRun(
        settings=Settings(heal=True, session_budget=0.2, concurrency=1),
        runner=runner,  # type: ignore[arg-type]
        failures=[first, second],
        passed=[],
        test_files=frozenset({"test_calc.py"}),
        repairers=[model],
    )

    outcome = heal_all(run)

    assert len(model.asked) == 1  # begun in time, finished; the next is not begun
    reasons = {result.nodeid: result.reason for result in outcome.results}
    assert reasons[MEAN] == "not attempted: the session's healing budget of 0.2 s is spent"
    assert MEAN in outcome.transcripts


def test_a_fix_that_breaks_another_modules_test_is_left_out_not_the_innocent_one(
    project: Path,
) -> None:
    # Two failures in two modules, two root causes. The fix for test_a (checked against its own
    # module) breaks test_b.py::test_ok; the fix for test_b is fine. The joint run fails: the
    # fix that breaks test_ok is left out, even though it came first.
    a, b, ok = "test_a.py::test_x", "test_b.py::test_y", "test_b.py::test_ok"
    (project / "test_a.py").write_text("from calc import mean\n")
    (project / "test_b.py").write_text("from calc import mean\n")
    (project / "calc.py").write_text(CALC + "\n\ndef total(xs):\n    return 0\n")
    runner = FakeRunner(project, {a: ("FIX_A",), b: ("FIX_B",)}, breaks={ok: "FIX_A"})
    fixes = {
        a: Edit("replace", "calc.py", "mean", "def mean(xs):\n    return 0  # FIX_A\n"),
        b: Edit("replace", "calc.py", "total", "def total(xs):\n    return 1  # FIX_B\n"),
    }

    class ByCase(Proposer):
        def repair(self, task: Task) -> Healed | Failed:
            decided = task.prove(Proposal((fixes[task.problem.lead.nodeid],), "because"))
            assert isinstance(decided, Accepted), decided
            return Healed(decided.candidate, Spend(rounds=1), self.name, decided.verdict)

    frame = (CALC_FRAME,)
    run = HealRun(
        settings=Settings(heal=True, concurrency=1),
        runner=runner,  # type: ignore[arg-type]
        failures=[
            Failure(a, "call", "test_a.py", "KeyError", "", "", frame),
            Failure(b, "call", "test_b.py", "ValueError", "", "", frame),
        ],
        passed=[ok],
        test_files=frozenset({"test_a.py", "test_b.py"}),
        repairers=[ByCase("m", [])],
    )

    results = {result.nodeid: result for result in heal_all(run).results}

    assert results[b].healed
    assert not results[a].healed
    assert results[a].reason == f"its fix is left out of the patch: fix broke {ok}"


def test_in_threads_runs_jobs_at_once_and_drops_what_is_in_flight_on_ctrl_c() -> None:
    started, release = threading.Barrier(3), threading.Event()
    into: list[int] = []

    def work(job: list[int]) -> list[int]:
        started.wait(5)  # both workers are in flight at once
        release.wait(5)
        return job

    def interrupt() -> None:
        started.wait(5)
        import _thread

        _thread.interrupt_main()  # what Ctrl-C does

    # Python's own handler, whatever this process was started with (a background job of a
    # shell ignores SIGINT, and interrupt_main then does nothing).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt).start()
        with pytest.raises(KeyboardInterrupt):
            in_threads([[1], [2]], work, 2, into)  # type: ignore[arg-type]
    finally:
        signal.signal(signal.SIGINT, previous)
        release.set()

    assert into == []  # replies that arrive after the interruption are dropped


def test_the_engine_does_not_import_pytest() -> None:
    code = "import sys; sys.modules['pytest'] = None; import pytest_caretaker.engine"

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)

    assert done.returncode == 0, done.stderr[-2000:]


# -- a big module, and faults of the machine (#15) -----------------------------------------------


def test_the_baseline_and_the_checks_rerun_at_most_200_of_a_big_modules_tests(
    project: Path,
) -> None:
    passed = [f"test_calc.py::test_{n}" for n in range(1_000)]
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",)})
    run = HealRun(
        settings=Settings(heal=True),
        runner=runner,  # type: ignore[arg-type]
        failures=[failure(MEAN)],
        passed=passed,
        test_files=frozenset({"test_calc.py"}),
        repairers=[Proposer("m", [GOOD])],
    )

    (result,) = heal_all(run).results

    assert result.healed
    (baseline, traced), *checks = runner.runs
    assert traced and MEAN in baseline and len(baseline) == 1 + NEIGHBOURS
    assert checks and all(len(ids) <= 1 + NEIGHBOURS for ids, _ in checks)


def test_a_caretaker_folder_that_cannot_be_made_costs_its_files_not_the_fixes(
    project: Path,
) -> None:
    # A file where the folder goes: mkdir fails as it does in a read-only checkout.
    (project / ".caretaker").write_text("not a folder")
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",), TOTAL: ()})

    outcome = heal(runner, [MEAN], Proposer("m", [GOOD]))

    assert [result.healed for result in outcome.results] == [True]
    assert outcome.patch is None
    (note,) = outcome.notes
    assert note.startswith("caretaker: could not write to .caretaker/ ([Errno 17] File exists")
    assert note.endswith("the patch and the transcripts are missing, the fixes are in this summary")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_full_disk_costs_the_files_not_the_fixes(project: Path) -> None:
    folder = project / ".caretaker"
    folder.mkdir()
    (folder / ".gitignore").write_text("*\n")
    (folder / "heal.patch").symlink_to("/dev/full")  # every write to it: ENOSPC
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",), TOTAL: ()})

    outcome = heal(runner, [MEAN], Proposer("m", [GOOD]))

    assert [result.healed for result in outcome.results] == [True]
    (note,) = outcome.notes
    assert "[Errno 28] No space left on device" in note


class JsonCache:
    """What pytest's cache does with a value: it keeps the JSON of it."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}

    def get(self, key: str, default: Any) -> Any:
        return json.loads(self.data[key]) if key in self.data else default

    def set(self, key: str, value: object) -> None:
        self.data[key] = json.dumps(value)


def heal_with(memory: FixMemory, model: Proposer, runner: FakeRunner, **settings: Any) -> Any:
    run = HealRun(
        settings=Settings(heal=True, **settings),
        runner=runner,  # type: ignore[arg-type]
        failures=[failure(MEAN)],
        passed=[TOTAL],
        test_files=frozenset({"test_calc.py"}),
        memory=memory,
        repairers=[model],
    )
    return heal_all(run)


def test_a_remembered_fix_is_reused_and_under_heal_no_cache_it_is_not(project: Path) -> None:
    cache = JsonCache()
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",), TOTAL: ()})
    heal_with(FixMemory(cache), Proposer("some/model", [GOOD]), runner)
    assert KEY in cache.data

    again = Proposer("some/model", [GOOD])
    (reused,) = heal_with(FixMemory(cache), again, runner).results
    assert again.asked == [] and reused.healed and reused.via == "cache"

    cache.data.clear()
    heal_with(FixMemory(cache), Proposer("some/model", [GOOD]), runner)
    model = Proposer("some/model", [GOOD])
    (fresh,) = heal_with(FixMemory(cache), model, runner, cache=False).results
    assert model.asked == [MEAN] and fresh.healed and fresh.via == "repair"
    # What --heal-no-cache found is still remembered, for the runs without it.
    assert len(FixMemory(cache).recall(failure(MEAN), ProjectFiles(project))) == 1


def test_a_cache_nested_too_deeply_to_read_is_one_line_and_healing_goes_on(project: Path) -> None:
    cache = JsonCache()
    cache.data[KEY] = "[" * 100_000 + "]" * 100_000  # json.loads: RecursionError
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",), TOTAL: ()})

    outcome = heal_with(FixMemory(cache), Proposer("some/model", [GOOD]), runner)

    assert [result.healed for result in outcome.results] == [True]
    assert outcome.notes == [
        f"caretaker: pytest's cache entry {KEY} is damaged (nested too deeply to read); the "
        "remembered fixes that could not be read are ignored and the entry is rewritten"
    ]
    assert isinstance(json.loads(cache.data[KEY]), dict)  # rewritten, with the new fix


BAD = GOOD.replace("return", "# breaks test_median\n    return")
MEDIAN, MODE = "test_calc.py::test_median", "test_calc.py::test_mode"


def heal_selected(runner: FakeRunner, model: Proposer, **run: object):  # type: ignore[no-untyped-def]
    """heal MEAN, which the run ran with TOTAL, while it did not run what run names."""
    return heal_all(
        HealRun(
            settings=Settings(heal=True),
            runner=runner,  # type: ignore[arg-type]
            failures=[failure(MEAN)],
            passed=[TOTAL],
            test_files=frozenset({"test_calc.py"}),
            repairers=[model],
            **run,  # type: ignore[arg-type]
        )
    )


def test_a_fix_that_breaks_a_test_the_run_deselected_is_rejected(project: Path) -> None:
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",)}, breaks={MEDIAN: "breaks test_median"})
    model = Proposer("some/model", [BAD])

    outcome = heal_selected(runner, model, unselected=[MEDIAN, "test_other.py::test_x"])

    (baseline,) = [ids for ids, trace in runner.runs if trace]
    assert baseline == (MEAN, TOTAL, MEDIAN)  # its status learnt; another module's is not
    (result,) = outcome.results
    assert not result.healed and result.reason == f"fix broke {MEDIAN}"


def test_a_test_the_run_deselected_that_fails_already_is_no_evidence(project: Path) -> None:
    runner = FakeRunner(project, {MEAN: ("len(xs)\n",), MEDIAN: ("never there",)})
    model = Proposer("some/model", [GOOD])

    (result,) = heal_selected(runner, model, unselected=[MEDIAN]).results

    assert result.healed
    assert all(MEDIAN not in ids for ids, trace in runner.runs if not trace)


def test_a_file_the_run_chose_by_node_id_is_run_whole_in_the_baseline(project: Path) -> None:
    runner = FakeRunner(
        project,
        {MEAN: ("len(xs)\n",)},
        breaks={MEDIAN: "breaks test_median"},
        files={"test_calc.py": (MEAN, TOTAL, MEDIAN, MODE)},
    )
    model = Proposer("some/model", [BAD])

    outcome = heal_selected(runner, model, whole_files=frozenset({"test_calc.py", "test_b.py"}))

    (baseline,) = [ids for ids, trace in runner.runs if trace]
    assert baseline == (MEAN, TOTAL, "test_calc.py")
    (result,) = outcome.results
    assert not result.healed and result.reason == f"fix broke {MEDIAN}"
    (proving,) = [set(ids) for ids, trace in runner.runs if not trace]
    assert {MEDIAN, MODE, TOTAL} <= proving
