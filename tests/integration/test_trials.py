"""The trial server: one collected session, a forked child per candidate, contained failures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from helpers import snapshot, stopped_at

from pytest_caretaker.verify import trials
from pytest_caretaker.verify.runner import Runner
from pytest_caretaker.verify.trials import Trial, Trials

pytestmark = pytest.mark.skipif(not trials.AVAILABLE, reason="trials need fork (Linux)")

CALC = """\
import os
import sys


def mean(xs):
    return sum(xs) / (len(xs) + 1)


class Stats:
    def spread(self, xs):
        return max(xs) - max(xs)
"""
TESTS = """\
from calc import Stats, mean


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_mean_of_one():
    assert mean([4]) == 4


def test_spread():
    assert Stats().spread([1, 5]) == 4


def test_unrelated():
    assert True
"""
MEAN, ONE, SPREAD, UNRELATED = (
    f"test_calc.py::{name}"
    for name in ("test_mean", "test_mean_of_one", "test_spread", "test_unrelated")
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("trials").resolve()
    root.joinpath("calc.py").write_text(CALC)
    root.joinpath("test_calc.py").write_text(TESTS)
    return root


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[Trials]:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    with Runner(project, project, args, timeout=30.0) as runner:
        started = Trials.start(runner, [MEAN, ONE, SPREAD, UNRELATED])
        assert started is not None
        assert started.ready()
        yield started
        started.close()


FUNCTIONS = {
    "mean": (5, "    return sum(xs) / (len(xs) + 1)\n"),
    "Stats.spread": (10, "        return max(xs) - max(xs)\n"),
}


def trial(
    server: Trials, project: Path, tests: list[str], body: str, function: str = "mean"
) -> Trial:
    """One trial of calc.py with the body of one function replaced."""
    line, old = FUNCTIONS[function]
    source = CALC.replace(old, body)
    done = server.run(tests, 1.0, str(project / "calc.py"), function, line, source)
    assert done is not None, "the trial server died"
    return done


def test_the_server_collected_what_it_was_asked(server: Trials) -> None:
    assert server.collected == {MEAN, ONE, SPREAD, UNRELATED}


def test_unchanged_code_fails_as_in_the_run(server: Trials) -> None:
    trial = server.run([MEAN, UNRELATED], 5.0)

    assert trial is not None
    assert not trial.passed
    assert trial.reason == f"{MEAN} failed"


def test_a_fix_passes_and_the_next_trial_starts_clean(server: Trials, project: Path) -> None:
    before = snapshot(project)

    fixed = trial(server, project, [MEAN, ONE], "    return sum(xs) / len(xs)\n")
    again = server.run([MEAN], 5.0)

    assert fixed.passed, fixed
    assert again is not None and not again.passed  # the swap lived in the child only
    assert snapshot(project) == before


def test_a_method_is_swapped_in_place(server: Trials, project: Path) -> None:
    fixed = trial(server, project, [SPREAD], "        return max(xs) - min(xs)\n", "Stats.spread")

    assert fixed.passed, fixed


def test_the_first_test_that_does_not_pass_decides(server: Trials, project: Path) -> None:
    # Fixes test_mean but breaks test_mean_of_one: the trial must not pass.
    wrong = trial(server, project, [MEAN, ONE, UNRELATED], "    return 2\n")

    assert not wrong.passed
    assert wrong.reason == f"{ONE} failed"


ESCAPES = {
    "hangs": ("    while True:\n        pass\n", "did not finish within"),
    "os._exit(0)": ("    os._exit(0)\n", "exited with code 0 before reporting"),
    "SystemExit": ("    raise SystemExit(0)\n", f"{MEAN} failed"),
    "sys.exit in a loop": ("    while True:\n        sys.exit(0)\n", f"{MEAN} failed"),
    "kills itself": (
        "    import signal\n    os.kill(os.getpid(), signal.SIGKILL)\n",
        "killed by signal 9",
    ),
    "fills memory": ("    xs = list(xs)\n    for x in xs:\n        xs.append(x)\n", ""),
    "does not compile": ("    return sum(xs) /\n", "does not compile"),
}


@pytest.mark.parametrize(("body", "reason"), ESCAPES.values(), ids=ESCAPES.keys())
def test_a_candidate_that_escapes_never_passes(
    server: Trials, project: Path, body: str, reason: str
) -> None:
    escaped = trial(server, project, [MEAN], body)

    assert not escaped.passed
    assert not escaped.unsupported
    assert reason in escaped.reason
    # and the server is still there for the next candidate
    assert trial(server, project, [MEAN], "    return sum(xs) / len(xs)\n").passed


def test_a_function_it_cannot_find_is_unsupported(server: Trials, project: Path) -> None:
    unknown = server.run([MEAN], 1.0, str(project / "calc.py"), "nowhere", 99, CALC)

    assert unknown is not None
    assert unknown.unsupported
    assert not unknown.passed


def test_a_closed_server_reports_none(project: Path, runners: Any) -> None:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    started = Trials.start(runners(project, project, args, timeout=30.0), [MEAN])
    assert started is not None and started.ready()

    started.close()

    assert started.run([MEAN], 1.0) is None


def test_collection_that_finds_nothing_is_not_ready(project: Path, runners: Any) -> None:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    started = Trials.start(runners(project, project, args, 30.0), ["test_calc.py::test_missing"])
    assert started is not None

    assert not started.ready()


def test_a_candidate_that_still_hangs_fails_within_what_the_passing_tests_took(
    project: Path, runners: Any
) -> None:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    started = Trials.start(runners(project, project, args, timeout=30.0), [MEAN, ONE, UNRELATED])
    assert started is not None and started.ready()
    hangs = "    while True:\n        pass\n"
    try:
        # Nothing has passed yet, no limit is set: the trial's own 1 s ends it, and the trial.
        first = trial(started, project, [MEAN, UNRELATED], hangs)
        # The code as it is runs every test, not only up to the first that fails: test_unrelated
        # passes (in far less than 50 ms), so a test may now take 0.5 s, the least there is.
        reference = started.run([MEAN, ONE, UNRELATED], 5.0)
        again = trial(started, project, [MEAN, UNRELATED], hangs)
    finally:
        started.close()

    assert first.reason == "the tests did not finish within 1 s"
    assert reference is not None and reference.reason == f"{MEAN} failed"
    # The reasons say which limit ended each trial: the trial's 1 s first, then the passing
    # tests' 0.5 s (three times it where a busy machine starved the test: patience.py), not the
    # trial's. No clock: which of two short runs ends first is the machine's load.
    assert again.reason.startswith(f"{MEAN} failed: ") and stopped_at(again.reason, 0.5), again


def test_before_any_trial_a_hanging_test_is_cut_at_the_sessions_limit_not_the_projects(
    tmp_path: Path, runners: Any
) -> None:
    # The project gives its tests 30 s (pytest-timeout); the session's passing tests were fast,
    # so the parent's limit is 1 s: the reference trial of a hanging bug takes that, not 30 s
    # (which outlived the trial's own 5 s, and with it every trial of the search).
    root = tmp_path.resolve()
    root.joinpath("spin.py").write_text("def spin():\n    while True:\n        pass\n")
    root.joinpath("test_spin.py").write_text(
        "import pytest\nfrom spin import spin\n\n\n@pytest.mark.timeout(30)\n"
        "def test_spin():\n    spin()\n"
    )
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(root)]
    runner = runners(root, root, args, timeout=30.0, test_limit=1.0)
    started = Trials.start(runner, ["test_spin.py::test_spin"])
    assert started is not None and started.ready()
    try:
        reference = started.run(["test_spin.py::test_spin"], 5.0)
    finally:
        started.close()
        runner.close()

    assert reference is not None
    assert reference.reason.startswith("test_spin.py::test_spin failed: ")
    assert stopped_at(reference.reason, 1.0), reference.reason


def test_a_trial_that_caretaker_fails_says_it_is_caretakers(server: Trials, project: Path) -> None:
    # A request the child cannot handle, as a bug of caretaker's would make one: a test id that
    # is no string. Not the candidate's failure, nor one that ends the server.
    tests = cast(list[str], [["not", "an", "id"]])

    failed = server.run(tests, 5.0)
    again = server.run([UNRELATED], 5.0)

    assert failed is not None and not failed.passed
    assert failed.reason.startswith(
        "caretaker's trial process failed: TypeError: unhashable type: 'list' at trial_server.py:"
    )
    assert again is not None and again.passed


LATE = "def double(x):\n    return x * 3\n"


def test_a_module_the_tests_import_only_when_they_run_is_tried_in_place(
    tmp_path: Path, runners: Any
) -> None:
    # cachetools imports `._cached` inside `cached()`: when the server indexed the project's
    # functions it had none of that module, and each of its candidates was "unsupported" (the
    # ordinary verifier then took ~1.5 s a candidate, against ~30 ms for a trial).
    root = tmp_path.resolve()
    package = root / "pkg"
    package.mkdir()
    package.joinpath("__init__.py").write_text(
        "def twice(x):\n    from pkg.late import double\n\n    return double(x)\n"
    )
    package.joinpath("late.py").write_text(LATE)
    root.joinpath("test_pkg.py").write_text(
        "from pkg import twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n"
    )
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(root)]
    runner = runners(root, root, args, timeout=30.0)
    started = Trials.start(runner, ["test_pkg.py::test_twice"])
    assert started is not None and started.ready()
    late = str(package / "late.py")
    try:
        fixed = started.run(["test_pkg.py::test_twice"], 5.0, late, "double", 1, LATE[:-2] + "2\n")
        wrong = started.run(["test_pkg.py::test_twice"], 5.0, late, "double", 1, LATE)
    finally:
        started.close()
        runner.close()

    assert fixed is not None and not fixed.unsupported and fixed.passed
    assert wrong is not None and not wrong.unsupported and not wrong.passed
