"""The verifier runs tests in another process with candidates in memory, and contains them."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import snapshot, stopped_at

from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.probe import unavailable
from pytest_caretaker.verify.runner import Confinement, Outcome, Runner, RunResult

CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n\n\ndef other():\n    return 1\n"
TESTS = """\
from calc import mean


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_empty_is_fine():
    assert mean([]) == 0 or True
"""
GOOD = b"def mean(xs):\n    return sum(xs) / len(xs)\n"
MEAN = "test_calc.py::test_mean"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project").resolve()
    root.joinpath("calc.py").write_text(CALC)
    root.joinpath("test_calc.py").write_text(TESTS)
    return root


@pytest.fixture(scope="module", params=["warm", "collected", "cold"])
def runner(request: pytest.FixtureRequest, project: Path) -> Iterator[Runner]:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    # A fresh interpreter may need seconds to start on a loaded machine; a hang is given less.
    warm = request.param != "cold"
    with Runner(project, project, args, timeout=2.0 if warm else 15.0, warm=warm) as runner:
        if request.param == "collected":  # the warm server collects the tests once
            runner.collect = ("test_calc.py",)
        yield runner


@pytest.fixture
def impatient(runner: Runner) -> Iterator[Runner]:
    """The runner with a 2 s timeout, for candidates that never finish."""
    patient, runner.timeout = runner.timeout, 2.0
    yield runner
    runner.timeout = patient


def test_candidate_runs_from_memory(runner: Runner, project: Path) -> None:
    before = snapshot(project)

    plain = runner.run([MEAN])
    patched = runner.run([MEAN], {"calc.py": GOOD})

    assert plain.outcomes[MEAN].outcome == "failed"
    assert patched.outcomes[MEAN] == Outcome("passed")
    assert snapshot(project) == before
    assert not list(project.rglob("__pycache__")) and not (project / ".pytest_cache").exists()


def test_patched_test_module_keeps_assertion_rewriting(runner: Runner) -> None:
    tests = TESTS.replace("mean([1, 2, 3]) == 2", "mean([1, 2, 3]) == 7").encode()

    result = runner.run([MEAN], {"test_calc.py": tests, "calc.py": GOOD})

    detail = result.outcomes[MEAN].detail
    assert "assert mean([1, 2, 3]) == 7" in detail  # the source shown is the one that ran
    assert "assert 2.0 == 7" in detail  # pytest's introspection: the module was rewritten


def test_trace_records_the_project_functions_a_test_ran(runner: Runner) -> None:
    result = runner.run([MEAN], trace=True)

    executed = result.executed[MEAN]
    assert executed.functions == (("test_calc.py", 4), ("calc.py", 1))
    assert executed.lines["calc.py"] == frozenset({2})


def test_trace_records_the_classes_a_method_ran_on(runner: Runner) -> None:
    # A base class's method reads a subclass's data: the trace says which subclass it ran on.
    shapes = (
        "class Shape:\n    sides = 0\n\n    def count(self):\n        return self.sides\n\n"
        "    @classmethod\n    def make(cls):\n        return cls()\n\n\n"
        "class Square(Shape):\n    sides = 3\n\n\ndef mean(xs):\n    return Square.make().count()\n"
    )
    result = runner.run([MEAN], {"calc.py": shapes.encode()}, trace=True)
    assert result.executed[MEAN].classes == (
        (("calc.py", 7), ("calc.py", "Square")),
        (("calc.py", 4), ("calc.py", "Square")),
    )
    assert runner.run([MEAN], trace=True).executed[MEAN].classes == ()


def test_trace_records_the_programs_a_test_started(runner: Runner) -> None:
    spawning = (
        "import os, subprocess, sys\n\n\n"
        "def test_mean():\n"
        "    subprocess.run([sys.executable, '-c', 'import calc'], check=False)\n"
        "    os.system('true')\n"
    )

    result = runner.run([MEAN], {"test_calc.py": spawning.encode()}, trace=True)

    interpreter = os.path.basename(sys.executable)
    assert result.executed[MEAN].spawned == (f"{interpreter} -c import calc", "true")
    assert runner.run([MEAN], trace=True).executed[MEAN].spawned == ()


CONTAINED = {
    "hangs": b"def mean(xs):\n    while True:\n        pass\n",
    "exits with 0": b"import os\n\ndef mean(xs):\n    os._exit(0)\n",
    "kills itself": (
        b"import os, signal\n\ndef mean(xs):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
    ),
    "exits at import": b"import sys\nsys.exit(0)\n",
}


@pytest.mark.parametrize("candidate", CONTAINED.values(), ids=CONTAINED.keys())
def test_candidate_that_escapes_never_passes(impatient: Runner, candidate: bytes) -> None:
    runner = impatient
    result = runner.run([MEAN], {"calc.py": candidate})

    verdict = judge(result, [MEAN], [])
    assert not verdict.ok
    assert verdict.reason
    runner.timeout = 60.0  # the next run is an ordinary one: a loaded machine may be slow
    again = runner.run([MEAN], {"calc.py": GOOD})
    assert again.problem is None, again.problem
    assert again.outcomes[MEAN].outcome == "passed"  # the runner is still usable


def test_system_exit_in_a_test_is_a_failure(runner: Runner) -> None:
    result = runner.run([MEAN], {"calc.py": b"def mean(xs):\n    raise SystemExit(0)\n"})

    assert result.outcomes[MEAN].outcome == "failed"


def test_timeout_reason_names_the_limit(impatient: Runner) -> None:
    result = impatient.run([MEAN], {"calc.py": CONTAINED["hangs"]})

    assert result.problem == "the tests did not finish within 2 s (does the code loop forever?)"


def test_judge_names_the_broken_neighbour() -> None:
    result = RunResult(
        outcomes={MEAN: Outcome("passed"), "t.py::b": Outcome("failed", "assert 1 == 2")},
        executed={},
    )

    verdict = judge(result, [MEAN], ["t.py::b"])

    assert (verdict.ok, verdict.reason, verdict.detail) == (
        False,
        "fix broke t.py::b",
        "assert 1 == 2",
    )
    assert judge(result, [MEAN], []).ok
    missing = judge(result, [MEAN], ["t.py::gone"])
    assert missing.reason == "fix broke t.py::gone (it did not run)"


STEPS = """\
import signal


def steps_to(n):
    i = 0
    steps = 0
    while i != n:
        i += 2
        steps += 1
    return steps


def deaf():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # no alarm reaches it
    while True:
        pass
"""
STEPS_TESTS = """\
import pytest

from steps import deaf, steps_to


def test_odd():
    assert steps_to(3) == 2


def test_even():
    assert steps_to(4) == 2


def test_catches_everything():
    try:
        steps_to(3)
    except BaseException:
        pass


def test_catches_exceptions():
    try:
        steps_to(3)
    except Exception:
        pass


@pytest.mark.timeout(0.3)
def test_marked():
    steps_to(3)


def test_deaf():
    deaf()
"""
ODD, EVEN = "test_steps.py::test_odd", "test_steps.py::test_even"
LOOP_LINES = frozenset({5, 6, 7, 8, 9})  # steps_to: the loop and what leads to it


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("steps").resolve()
    root.joinpath("steps.py").write_text(STEPS)
    root.joinpath("test_steps.py").write_text(STEPS_TESTS)
    return root


def steps_runner(root: Path, *more: str, **options: Any) -> Runner:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(root), *more]
    return Runner(root, root, args, **{"timeout": 20.0, **options})


NO_SANDBOX = pytest.mark.skipif(unavailable(False) is not None, reason="no sandbox here")


@pytest.mark.parametrize(
    ("warm", "confined", "collect"),
    [
        (True, False, ()),
        (True, False, ("test_steps.py",)),
        (False, False, ()),
        pytest.param(True, True, (), marks=NO_SANDBOX),
        pytest.param(True, True, ("test_steps.py",), marks=NO_SANDBOX),
    ],
    ids=["warm", "collected", "cold", "sandboxed", "sandboxed-collected"],
)
def test_a_test_that_hangs_fails_with_its_lines_and_the_next_test_runs(
    steps: Path, warm: bool, confined: bool, collect: tuple[str, ...]
) -> None:
    confinement = Confinement() if confined else None
    with steps_runner(steps, warm=warm, test_limit=0.5, confinement=confinement) as runner:
        runner.collect = collect
        result = runner.run([ODD, EVEN], trace=True)

    assert result.problem is None, result.output
    assert result.outcomes[ODD].outcome == "failed"
    detail = result.outcomes[ODD].detail
    assert stopped_at(detail, 0.5), detail
    # Where it was when the limit came: in the loop (not in caretaker's tracer).
    assert re.search(r"^steps\.py:[789]: TimeLimitExceeded$", detail, re.MULTILINE), detail
    assert result.executed[ODD].lines["steps.py"] == LOOP_LINES
    # The run went on past the hang (the next test passed, no problem with the run): the test's
    # 0.5 s ended it, not the run's 20 s, which would have ended the run with a problem.
    assert result.outcomes[EVEN].outcome == "passed"


def test_a_test_cannot_catch_its_limit(steps: Path) -> None:
    everything, exceptions = (
        "test_steps.py::test_catches_everything",
        "test_steps.py::test_catches_exceptions",
    )
    with steps_runner(steps, test_limit=0.3) as runner:
        result = runner.run([everything, exceptions, EVEN])

    assert result.problem is None, result.output
    for nodeid in (everything, exceptions):
        assert result.outcomes[nodeid].outcome == "failed", nodeid
        assert "did not finish within 0.3 s" in result.outcomes[nodeid].detail
    assert result.outcomes[EVEN].outcome == "passed"


@pytest.mark.skipif(
    importlib.util.find_spec("pytest_timeout") is None, reason="pytest-timeout is not installed"
)
@pytest.mark.parametrize("setting", [["-o", "timeout=0.4"], ["--timeout=0.4"]], ids=["ini", "cli"])
def test_the_projects_pytest_timeout_setting_is_each_tests_limit(
    steps: Path, setting: list[str]
) -> None:
    # The project's limit, where it is below the derived one; pytest-timeout's timer is not set.
    with steps_runner(steps, *setting, test_limit=5.0) as runner:
        result = runner.run([ODD, "test_steps.py::test_marked", EVEN])

    assert result.problem is None, result.output
    assert "did not finish within 0.4 s" in result.outcomes[ODD].detail
    assert "did not finish within 0.3 s" in result.outcomes["test_steps.py::test_marked"].detail
    assert "pytest-timeout" not in result.outcomes[ODD].detail
    assert result.outcomes[EVEN].outcome == "passed"


@pytest.mark.skipif(
    importlib.util.find_spec("pytest_timeout") is None, reason="pytest-timeout is not installed"
)
def test_a_derived_limit_below_the_projects_timeout_is_each_tests_limit(steps: Path) -> None:
    # A project's timeout suits its slowest test; a case that hangs costs what the run's take.
    with steps_runner(steps, "-o", "timeout=30", test_limit=0.4) as runner:
        result = runner.run([ODD, EVEN])

    assert result.problem is None, result.output
    assert "did not finish within 0.4 s" in result.outcomes[ODD].detail
    assert result.outcomes[EVEN].outcome == "passed"


def test_a_limit_is_at_most_a_share_of_the_runs(tmp_path: Path) -> None:
    # The run may take 10 s: the hanging test is cut at 80 % of that, and the 2 s left are for
    # the test after it and the session's end (a quiet machine needs ~0.1 s; 1 s, of a 5 s run,
    # was too short at a load of 10 on two cores). The test hangs asleep, not in a loop: the 8 s
    # cost the suite no processor.
    tmp_path.joinpath("test_sleeps.py").write_text(
        "import time\n\n\ndef test_sleeps():\n    time.sleep(3600)\n\n\n"
        "def test_after():\n    assert True\n"
    )
    sleeps, after = "test_sleeps.py::test_sleeps", "test_sleeps.py::test_after"
    with steps_runner(tmp_path, test_limit=60.0, timeout=10.0) as runner:
        runner.run([after])  # the server started: the run below is timed from its fork
        result = runner.run([sleeps, after])

    assert result.problem is None, result.output
    assert "did not finish within 8 s" in result.outcomes[sleeps].detail
    assert result.outcomes[after].outcome == "passed"


def test_a_hang_no_alarm_reaches_ends_with_the_whole_run(steps: Path) -> None:
    with steps_runner(steps, test_limit=0.3, timeout=2.0) as runner:
        result = runner.run(["test_steps.py::test_deaf", EVEN])

    assert result.problem == "the tests did not finish within 2 s (does the code loop forever?)"


def test_a_candidate_that_still_hangs_is_rejected_within_the_tests_limit(steps: Path) -> None:
    still = STEPS.replace("steps += 1", "steps += 2").encode()
    with steps_runner(steps, test_limit=0.5) as runner:
        result = runner.run([ODD, EVEN], {"steps.py": still})
        fixed = runner.run([ODD, EVEN], {"steps.py": STEPS.replace("!=", "<").encode()})

    verdict = judge(result, [ODD], [EVEN])
    assert (verdict.ok, verdict.reason) == (False, f"{ODD} still hangs")
    # The test's 0.5 s ended it, not the run's 20 s: the run has no problem and the next test ran
    # to its end (the candidate breaks it: steps_to(4) is 4 now).
    assert stopped_at(verdict.detail, 0.5), verdict.detail
    assert result.problem is None and "assert 4 == 2" in result.outcomes[EVEN].detail
    assert judge(fixed, [ODD], [EVEN]).ok


@pytest.mark.parametrize("collect", [(), ("test_loaded.py",)], ids=["whole", "collected"])
def test_a_plugin_the_runs_block_is_not_preloaded_by_the_warm_server(
    tmp_path: Path, collect: tuple[str, ...]
) -> None:
    # hypothesis, of the test extra, is an installed pytest plugin ("hypothesispytest") that
    # imports its whole package; a run that blocks it must not find it imported all the same.
    pytest.importorskip("hypothesis")
    tmp_path.joinpath("test_loaded.py").write_text(
        "import sys\n\n\ndef test_loaded():\n    assert 'hypothesis' not in sys.modules\n"
    )
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(tmp_path)]
    outcomes = {}
    for blocking in ([], ["-p", "no:hypothesispytest"]):
        with Runner(tmp_path, tmp_path, args + blocking, timeout=15.0, warm=True) as runner:
            runner.collect = collect
            result = runner.run(["test_loaded.py::test_loaded"])
        outcomes[bool(blocking)] = result.outcomes["test_loaded.py::test_loaded"].outcome

    assert outcomes == {False: "failed", True: "passed"}


def test_a_long_computation_is_traced_in_full_for_its_first_million_lines_only(
    tmp_path: Path,
) -> None:
    # Traced line by line a computing test takes ten times as long (more-itertools' Fourier
    # round trip: 6.6 s, traced 67 s, past the baseline's limit): after MAX_LINES line events
    # only the functions it calls are recorded, and the rest runs near full speed.
    tmp_path.joinpath("big.py").write_text(
        "def work():\n    total = 0\n    for i in range(600_000):\n        total += i\n"
        "    return total\n\n\ndef late():\n    return 1\n"
    )
    tmp_path.joinpath("test_big.py").write_text(
        "from big import late, work\n\n\ndef test_big():\n    assert work() > 0\n"
        "    assert late() == 1\n"
    )
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(tmp_path)]
    with Runner(tmp_path, tmp_path, args, timeout=120.0, warm=False) as runner:
        result = runner.run(["test_big.py::test_big"], trace=True)

    executed = result.executed["test_big.py::test_big"]
    assert result.outcomes["test_big.py::test_big"].outcome == "passed"
    assert ("big.py", 8) in executed.functions  # late() ran after the limit: it counts
    assert 9 not in executed.lines["big.py"]  # its lines were no longer traced
    assert {2, 3, 4} <= executed.lines["big.py"]
