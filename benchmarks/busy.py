"""The built-in repairer's verdicts on a quiet and a busy machine, side by side (not a test; #46).

    python benchmarks/busy.py [--budget 20] [--busy 2] [--lines 700] [--candidates 3000]

1. `pytest --heal` (the built-in repairer, no model) over a copy of examples/bugs, once as the
   machine is and once with --busy processes spinning beside it (``while True: pass``): the
   healed counts both ways, the bugs whose verdict or candidates tried differ, and the wall time
   ratio. The budget counts work (builtin/work.py), so the verdicts should be the same, later.
   The machine's load average is printed before each session: others may share it.
2. Candidate generation on a generated function of --lines lines (the shape of
   python-tabulate's tabulate()): candidates a CPU second for its first --candidates, each
   checked by compiling the edited statement (now) and by compiling the whole function (before
   #46), side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from builtin_repair import BUGS, heal_collection

from pytest_caretaker.builtin import compiles, mutate
from pytest_caretaker.project.files import SourceFile
from pytest_caretaker.testing import busy


def verdicts(results: dict[str, dict[str, object]]) -> dict[str, tuple[bool, int]]:
    return {test: (bool(r["healed"]), int(str(r["candidates"]))) for test, r in results.items()}


def sessions(budget: float, processes: int) -> None:
    runs: dict[str, tuple[dict[str, tuple[bool, int]], float]] = {}
    for name, spinning in (("quiet", 0), (f"{processes} busy", processes)):
        workdir = Path(tempfile.mkdtemp(prefix="caretaker-busy-"))
        shutil.copytree(BUGS, workdir, dirs_exist_ok=True)
        try:
            load = os.getloadavg()[0]
            with busy(spinning):
                results, wall = heal_collection(workdir, budget)
            runs[name] = (verdicts(results), wall)
            print(f"{name}: load average {load:.1f} before; {wall:.1f} s", flush=True)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    (quiet, quiet_wall), (loaded, loaded_wall) = runs.values()
    print(f"\nbudget {budget:g} s per problem, {len(quiet)} failing tests")
    print(f"{'':14}{'healed':>8}{'candidates':>12}{'wall s':>9}")
    for name, (found, wall) in runs.items():
        healed = sum(ok for ok, _ in found.values())
        tried = sum(count for _, count in found.values())
        print(f"{name:14}{healed:>8}{tried:>12,}{wall:>9.1f}")
    print(f"time ratio busy / quiet: {loaded_wall / quiet_wall:.2f}")
    differ = sorted(t for t in quiet if quiet[t][0] != loaded.get(t, (None,))[0])
    counts = sorted(t for t in quiet if quiet[t][1] != loaded.get(t, (None, None))[1])
    print(f"verdicts that differ: {len(differ)} {differ}")
    print(f"candidates tried that differ: {len(counts)}")
    for test in counts:
        print(f"  {test}: {quiet[test][1]} quiet, {loaded.get(test, (None, None))[1]} busy")


def long_function(lines: int) -> str:
    """One function of about lines lines: an if/elif ladder with a few locals per branch."""
    body: list[str] = []
    n = 0
    while len(body) < lines - 6:
        body += [
            f"    if fmt == 'f{n}':",
            f"        width{n} = max(len(str(cell)) for cell in row) + {n % 5}",
            f"        pad = width{n} - len(sep) if width{n} > {n % 7} else 0",
            f"        lines.append(sep.join(str(c).rjust(pad) for c in row[{n % 3}:]))",
            f"        total += width{n} * {n % 4 + 1} - pad",
            f"    elif fmt == 'g{n}' and len(row) > {n % 6}:",
            f"        lines.append(str(row[{n % 2}]).center(total + {n}))",
        ]
        n += 1
    head = ["def render(row, fmt, sep=' '):", "    lines = []", "    total = 0"]
    tail = ["    return len(row) + total - 1 if lines else len(row)", ""]
    return "\n".join(head + body + tail)


def generation(lines: int, most: int) -> None:
    source = SourceFile("table.py", long_function(lines).encode())
    (definition,) = mutate.outermost(source)
    rates: dict[str, float] = {}
    original = compiles.Compiles.__init__

    def whole(self: compiles.Compiles, cut: compiles.Cut) -> None:
        original(self, cut)
        self.whole = True  # as before #46: the whole function compiled for each candidate

    for name, init in (("statement", original), ("whole function", whole)):
        compiles.Compiles.__init__ = init  # type: ignore[method-assign]
        made = [0]

        def go_on(made: list[int] = made) -> bool:
            made[0] += 1
            return made[0] <= most

        started = time.process_time()
        found = mutate.mutants(source, definition, None, go_on)
        cpu = time.process_time() - started
        rates[name] = len(found) / cpu
        print(f"{name:>15}: {len(found):,} candidates in {cpu:.1f} CPU s, {rates[name]:,.0f}/s")
    compiles.Compiles.__init__ = original  # type: ignore[method-assign]
    print(f"ratio: {rates['statement'] / rates['whole function']:.1f}x")
    everything = mutate.mutants(source, definition)
    print(f"the whole function: {len(everything):,} candidates")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=20.0)
    parser.add_argument("--busy", type=int, default=2)
    parser.add_argument("--lines", type=int, default=700)
    parser.add_argument("--candidates", type=int, default=3000)
    parser.add_argument("--skip-sessions", action="store_true")
    args = parser.parse_args()
    print(json.dumps({"cores": os.cpu_count(), "load": os.getloadavg()}))
    if not args.skip_sessions:
        sessions(args.budget, args.busy)
    print(f"\ncandidate generation, a {args.lines}-line function:")
    generation(args.lines, args.candidates)


if __name__ == "__main__":
    main()
