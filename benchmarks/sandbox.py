"""What the sandbox costs, measured side by side in one run (not part of the tests).

    python benchmarks/sandbox.py [--repeat 20]

1. Verification per candidate through the warm server, sandboxed and not, interleaved: medians
   and their ratio (target at most 1.1).
2. The same for a fresh process per run (the fallback when the warm server is not used).
3. The built-in repairer's trials per second (trial server, a candidate swapped in per trial),
   sandboxed and not.
4. Starting a warm server (until its first run answered), and the probe `--heal-sandbox auto`
   runs once per session.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pytest_caretaker.verify import probe as probe_module
from pytest_caretaker.verify.probe import unavailable
from pytest_caretaker.verify.runner import Confinement, Runner
from pytest_caretaker.verify.trials import Trials

ROOT = Path(__file__).resolve().parent.parent
NODE = "test_textstats.py::test_moving_average"
ARGS = ["-q", "-p", "no:cacheprovider", "-o", "addopts="]


def runner(project: Path, confined: bool, warm: bool = True) -> Runner:
    confinement = Confinement() if confined else None
    args = [*ARGS, "--rootdir", str(project)]
    return Runner(project, project, args, 60, warm=warm, confinement=confinement)


def interleaved(
    repeat: int, plain: Callable[[], float], boxed: Callable[[], float]
) -> tuple[float, float]:
    """Median seconds of each, measured one after the other, repeat times each."""
    a: list[float] = []
    b: list[float] = []
    for _ in range(repeat):
        a.append(plain())
        b.append(boxed())
    return statistics.median(a), statistics.median(b)


def run_once(run: Runner) -> Callable[[], float]:
    def measure() -> float:
        started = time.perf_counter()
        result = run.run([NODE])
        assert result.outcomes[NODE].outcome == "failed", result.output[-500:]
        return time.perf_counter() - started

    return measure


def trial_once(trials: Trials) -> Callable[[], float]:
    def measure() -> float:
        started = time.perf_counter()
        trial = trials.run([NODE], 10.0)
        assert trial is not None and not trial.passed
        return time.perf_counter() - started

    return measure


def report(label: str, plain: float, boxed: float, unit: str = "ms") -> None:
    scale = 1000 if unit == "ms" else 1
    print(
        f"{label:<34} unsandboxed {plain * scale:8.1f} {unit}   sandboxed {boxed * scale:8.1f} "
        f"{unit}   ratio {boxed / plain:5.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    repeat = parser.parse_args().repeat
    reason = unavailable(False)
    if reason is not None:
        raise SystemExit(f"no sandbox here: {reason}")
    work = Path(tempfile.mkdtemp(prefix="caretaker-bench-")).resolve()
    project = work / "quickstart"
    shutil.copytree(ROOT / "examples/quickstart", project)
    try:
        started = time.perf_counter()
        for _ in range(5):
            probe_module._check.__wrapped__(False, 20.0)  # the session's answer is cached
        probe = (time.perf_counter() - started) / 5
        print(f"{'probe (once per --heal session)':<34} {probe * 1000:.1f} ms")
        starts = []
        for confined in (False, True):
            started = time.perf_counter()
            with runner(project, confined) as run:
                run_once(run)()
            starts.append(time.perf_counter() - started)
        report("warm server start + first run", *starts)
        with runner(project, False) as plain, runner(project, True) as boxed:
            run_once(plain)(), run_once(boxed)()  # both servers started
            report(
                "verification, warm server", *interleaved(repeat, run_once(plain), run_once(boxed))
            )
        with (
            runner(project, False, warm=False) as plain,
            runner(project, True, warm=False) as boxed,
        ):
            fresh = interleaved(max(3, repeat // 4), run_once(plain), run_once(boxed))
            report("verification, fresh process", *fresh)
        with runner(project, False) as plain_run, runner(project, True) as boxed_run:
            plain = Trials.start(plain_run, [NODE])
            boxed = Trials.start(boxed_run, [NODE])
            assert plain is not None and boxed is not None and plain.ready() and boxed.ready()
            try:
                a, b = interleaved(repeat * 5, trial_once(plain), trial_once(boxed))
            finally:
                plain.close()
                boxed.close()
            report("trial (built-in repairer)", a, b)
            print(f"{'trials per second':<34} unsandboxed {1 / a:8.0f}      sandboxed {1 / b:8.0f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"(cores: {os.cpu_count()}; medians of interleaved runs)")


if __name__ == "__main__":
    main()
