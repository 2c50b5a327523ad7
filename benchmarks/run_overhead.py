"""What `caretaker run` costs on a passing command, and what a check command's scratch copy
costs per run, measured side by side in one run (not part of the tests).

    python benchmarks/run_overhead.py [--repeat 20]

1. `python ok.py` alone and under `caretaker run --`, interleaved: medians and the difference
   (target: under 0.3 s).
2. `sh check.sh` (examples/check, fixed) alone and through copies.Copies (a fresh copy of the
   project per run, unconfined and in the sandbox): medians and ratios.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pytest_caretaker.run.copies import Copies
from pytest_caretaker.verify.policy import for_project
from pytest_caretaker.verify.probe import unavailable

ROOT = Path(__file__).resolve().parent.parent


def interleaved(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def shell(argv: list[str], cwd: Path, env: dict[str, str]) -> Callable[[], object]:
    return lambda: subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    repeat = parser.parse_args().repeat
    env = {**os.environ, "PYTHON": sys.executable}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "ok.py").write_text("print('fine')\n", encoding="utf-8")
        (folder / "pyproject.toml").write_text("", encoding="utf-8")
        caretaker = [sys.executable, "-m", "pytest_caretaker", "run", "--"]
        medians = interleaved(
            {
                "alone": shell([sys.executable, "ok.py"], folder, env),
                "caretaker run": shell([*caretaker, sys.executable, "ok.py"], folder, env),
            },
            repeat,
        )
        print("1. a passing command (median of", repeat, "interleaved runs)")
        for name, seconds in medians.items():
            print(f"   {name:<16} {seconds * 1000:7.1f} ms")
        extra = medians["caretaker run"] - medians["alone"]
        print(f"   overhead         {extra * 1000:7.1f} ms (target < 300 ms)")

        project = folder / "check"
        shutil.copytree(ROOT / "examples" / "check", project)
        invoice = (project / "invoice.py").read_text(encoding="utf-8")
        fixed = invoice.replace("1 + percent", "1 - percent").replace("lines[1:]", "lines")
        (project / "invoice.py").write_text(fixed, encoding="utf-8")
        work = folder / "work"
        work.mkdir()
        argv = ["sh", "check.sh"]
        plain = Copies(argv, project, env, 60, work)
        runs: dict[str, Callable[[], object]] = {
            "alone": shell(argv, project, env),
            "copy": lambda: plain({}),
        }
        if unavailable(False) is None:
            confined = Copies(argv, project, env, 60, work, for_project(project, work, False))
            runs["copy, sandboxed"] = lambda: confined({})
        medians = interleaved(runs, repeat)
        print(f"2. sh check.sh ({len(plain.files)} files copied per run)")
        for name, seconds in medians.items():
            ratio = seconds / medians["alone"]
            print(f"   {name:<16} {seconds * 1000:7.1f} ms  {ratio:5.2f}x")


if __name__ == "__main__":
    main()
