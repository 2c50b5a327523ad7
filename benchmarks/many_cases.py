"""Many failing cases, one bug (#33 item 4), measured side by side in one run (not a test).

    python benchmarks/many_cases.py [--repeat 5] [--cases 3,30,300]

One module with a one-token bug (``subtotal - 1``) and a parametrized test whose N cases all fail
because of it. For each N, interleaved (the order turned around every round): ``pytest -q --heal``
with the built-in repairer (the healing time caretaker reports in last-run.json, and the wall
time), and plain ``pytest -q`` on the fixed module (what running the N cases costs, so what one
proof run of them adds). Medians; for the plain run the fastest of the rounds, as its start-up
varies by more than what 300 passing cases cost.

Target: healing N cases costs what healing 3 costs plus one run of the N cases, i.e.
``heal(N) <= heal(3) + (run(N) - run(3))``; the last column is the ratio of the two sides.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUGGY = '''\
def total(price, qty):
    """The price of qty items."""
    if qty < 0:
        raise ValueError("qty")
    subtotal = price * qty
    return subtotal - 1
'''
TEST = """\
import pytest

from pricing import total


@pytest.mark.parametrize("n", range({cases}))
def test_total(n):
    assert total(n + 1, 2) == (n + 1) * 2
"""
ARGS = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly"]


def project(base: Path, cases: int, fixed: bool) -> Path:
    folder = base / f"{'fixed' if fixed else 'buggy'}-{cases}"
    folder.mkdir()
    source = BUGGY.replace("subtotal - 1", "subtotal") if fixed else BUGGY
    (folder / "pricing.py").write_text(source)
    (folder / "test_pricing.py").write_text(TEST.format(cases=cases))
    return folder


def timed(folder: Path, *extra: str) -> float:
    env = {**os.environ, "CARETAKER_MODEL_KEEP": "0", "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", *ARGS, *extra],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - started


def heal(folder: Path) -> tuple[float, float, int]:
    """(healing seconds, wall seconds, tests healed) of one ``pytest --heal`` run."""
    shutil.rmtree(folder / ".caretaker", ignore_errors=True)
    wall = timed(folder, "--heal")
    totals = json.loads((folder / ".caretaker" / "last-run.json").read_text())["totals"]
    return float(totals["seconds"]), wall, int(totals["tests_healed"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cases", default="3,30,300")
    options = parser.parse_args()
    sizes = [int(n) for n in options.cases.split(",")]
    healing: dict[int, list[float]] = {n: [] for n in sizes}
    walls: dict[int, list[float]] = {n: [] for n in sizes}
    runs: dict[int, list[float]] = {n: [] for n in sizes}
    healed: dict[int, set[int]] = {n: set() for n in sizes}
    with tempfile.TemporaryDirectory(prefix="caretaker-many-") as temp:
        base = Path(temp)
        buggy = {n: project(base, n, fixed=False) for n in sizes}
        fixed = {n: project(base, n, fixed=True) for n in sizes}
        for round_ in range(options.repeat):
            for n in sizes if round_ % 2 == 0 else sizes[::-1]:
                seconds, wall, count = heal(buggy[n])
                healing[n].append(seconds)
                walls[n].append(wall)
                healed[n].add(count)
                runs[n].append(timed(fixed[n]))
    median = statistics.median
    first = sizes[0]
    print(f"{'cases':>6} {'healed':>7} {'healing':>9} {'wall':>8} {'run':>8} {'ratio':>6}")
    for n in sizes:
        allowed = median(healing[first]) + min(runs[n]) - min(runs[first])
        ratio = median(healing[n]) / allowed
        print(
            f"{n:>6} {'/'.join(map(str, sorted(healed[n]))):>7} {median(healing[n]):>8.2f}s "
            f"{median(walls[n]):>7.2f}s {min(runs[n]):>7.2f}s {ratio:>6.2f}"
        )
    print(
        f"(cores: {os.cpu_count()}; medians of {options.repeat}; healing: caretaker's own time "
        f"after the run; run: plain pytest of the fixed module, fastest; ratio: healing(N) / "
        f"(healing({first}) + run(N) - run({first})), target <= 1.1)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
