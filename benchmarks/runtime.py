"""Runtime healing's costs, measured side by side in one run (not a test).

    python benchmarks/runtime.py [--calls 1000000] [--before DIR]

1. Record mode with no exception: a call of an @heal function against the same call of the
   undecorated one (best of 7 repeats of --calls calls each, per call); the difference is the
   decorator's cost, which the issue bounds at 1 µs. Also a method and a call with keywords,
   and heal mode's wrapper (which pickles the arguments before each call: development only).
2. Importing pytest_caretaker.runtime against an empty interpreter (median of 7 processes).
3. What an exception costs in record mode: recording one crash (the record written to disk).
4. Heal mode end to end against the scripted server: the first process (repair by the model,
   proof by replay in the sandbox) and a later one that uses the kept fix, against the script
   run plainly.
5. The sample of good calls (runtime/sample.py): a fresh @heal function called 10^5 times in
   record mode, per call on average (best of 9 fresh functions; the median of 5 such figures,
   each code measured in turn), against the undecorated one; with --before DIR (a checkout of
   an earlier revision, e.g. ``git worktree add /tmp/rt-before <rev>``) the same in that code,
   side by side: the difference is the sample's cost, which the issue bounds at 2 µs. How many
   of the calls were pickled, and writing a sample of 8 calls to disk.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def per_call(statement: str, setup: str, calls: int) -> float:
    """Seconds per call: the best of 7 repeats."""
    return min(timeit.repeat(statement, setup, number=calls, repeat=7)) / calls


SETUP = """
import os
os.environ["CARETAKER_RUNTIME"] = "{mode}"
from pytest_caretaker.runtime import heal

def plain(a, b):
    return a + b

decorated = heal(plain)

class Box:
    def plain(self, a, b):
        return a + b

    decorated = heal(plain)

box = Box()
"""


def overhead(calls: int) -> None:
    print("1. record mode, no exception: a decorated call against an undecorated one")
    for mode in ("record", "heal"):
        setup = SETUP.format(mode=mode)
        for label, bare, wrapped in (
            ("function f(1, 2)", "plain(1, 2)", "decorated(1, 2)"),
            ("method box.m(1, 2)", "box.plain(1, 2)", "box.decorated(1, 2)"),
            ("keywords f(1, b=2)", "plain(1, b=2)", "decorated(1, b=2)"),
        ):
            n = calls if mode == "record" else calls // 20
            base, cost = per_call(bare, setup, n), per_call(wrapped, setup, n)
            print(
                f"   {mode:6} {label:20} {base * 1e9:7.1f} ns → {cost * 1e9:7.1f} ns "
                f"(+{(cost - base) * 1e9:6.1f} ns, ×{cost / base:4.2f})"
            )


def imports() -> None:
    def median(code: str) -> float:
        times = []
        for _ in range(7):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    empty, runtime = median("pass"), median("import pytest_caretaker.runtime")
    print(
        f"2. import: python -c pass {empty * 1e3:.0f} ms, with pytest_caretaker.runtime "
        f"{runtime * 1e3:.0f} ms (+{(runtime - empty) * 1e3:.0f} ms)"
    )


def recording() -> None:
    with tempfile.TemporaryDirectory() as root:
        os.environ["CARETAKER_ROOT"] = root
        os.environ["CARETAKER_RUNTIME"] = "record"
        from pytest_caretaker.runtime import heal

        @heal(id="bench")
        def fails(values: dict[str, int]) -> int:
            return values["missing"]

        def once() -> None:
            with contextlib.suppress(KeyError):
                fails({"a": 1})

        once()  # the first one imports the recording stage
        took = min(timeit.repeat(once, number=20, repeat=5)) / 20
        del os.environ["CARETAKER_ROOT"]
    print(f"3. one exception recorded (record mode): {took * 1e3:.2f} ms")


INVOICE = """\
from pytest_caretaker.runtime import heal

RATES = {"standard": 0.2}


@heal(id="invoice-total")
def total(amount, kind):
    return round(amount * (1 + RATES[kind]), 2)
"""
GOOD = "def total(amount, kind):\n    return round(amount * (1 + RATES.get(kind, 0.0)), 2)\n"


def end_to_end() -> None:
    from pytest_caretaker.testing import ScriptedServer, tool_call

    with tempfile.TemporaryDirectory() as folder, ScriptedServer().start() as server:
        root = Path(folder)
        (root / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
        (root / "app").mkdir()
        (root / "app" / "__init__.py").write_text("")
        (root / "app" / "invoice.py").write_text(INVOICE)
        (root / "main.py").write_text("from app.invoice import total\nprint(total(100, 'x'))\n")
        fix = {"path": "app/invoice.py", "function": "total", "code": GOOD}
        server.script(tool_call("An unknown kind has no tax.", [fix]))
        env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}

        def timed(**more: str) -> float:
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "main.py"], cwd=root, env={**env, **more}, capture_output=True
            )
            return time.perf_counter() - started

        plain = timed(CARETAKER_RUNTIME="off")
        heal = {
            "CARETAKER_RUNTIME": "heal",
            "CARETAKER_MODEL": "openai/gpt-4o-mini",
            "CARETAKER_API_BASE": server.base_url,
        }
        first, kept = timed(**heal), timed(**heal)
    print(
        f"4. heal mode: the script plainly (it crashes) {plain:.2f} s; healed by the model "
        f"{first:.2f} s; with the kept fix {kept:.2f} s ({len(server.requests)} model request)"
    )


SAMPLED = 100_000  # calls of a fresh function


def sample_cost() -> dict[str, float]:
    """Seconds per call of a fresh decorated add(a, b) over SAMPLED calls (the sample fills and
    is replaced most at the start), and of the undecorated one: the best of 9 (the others are
    slowed by the machine's other work, not by the code)."""
    with tempfile.TemporaryDirectory() as root:
        os.environ["CARETAKER_ROOT"] = root  # the sample written at exit goes to a scratch folder
        os.environ["CARETAKER_RUNTIME"] = "record"
        from pytest_caretaker.runtime import heal

        def add(a: int, b: int) -> int:
            return a + b

        def best(setup: str) -> float:
            space = {"heal": heal, "add": add}
            times = timeit.repeat("f(1, 2)", setup, number=SAMPLED, repeat=9, globals=space)
            return min(times) / SAMPLED

        return {"plain": best("f = add"), "decorated": best("f = heal(add)")}


def written_cost() -> float:
    """Seconds to write a sample of 8 calls (what a crash and the exit cost once)."""
    from pytest_caretaker.runtime import goodcalls, heal

    with tempfile.TemporaryDirectory() as root:
        os.environ["CARETAKER_ROOT"] = root

        @heal(id="bench-sample")
        def mean(values: list[float]) -> float:
            return sum(values) / len(values)

        for n in range(1, 9):
            mean([float(v) for v in range(n)])
        sample = mean.__caretaker__.sample  # type: ignore[attr-defined]
        times = []
        for _ in range(5):
            sample.changed = True
            started = time.perf_counter()
            goodcalls.write(sample, Path(root))
            times.append(time.perf_counter() - started)
            Path(goodcalls.path_of(Path(root), "bench-sample")).unlink()
        return statistics.median(times)


def measured(code: str | None) -> dict[str, float]:
    """sample_cost() in a fresh process, with code (a checkout's folder) first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([code, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run(
        [sys.executable, __file__, "--sample-only"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def sampling(before: str | None, rounds: int = 5) -> None:
    """5.: each code measured in turn, rounds times (a machine's load drifts: turns share it),
    each figure the median of its rounds."""
    print(f"5. the sample of good calls: a fresh add(a, b) called {SAMPLED:,} times, per call")
    codes = [(f"before ({before})", before)] if before is not None else []
    codes.append(("this code", None))
    runs: dict[str, list[dict[str, float]]] = {label: [] for label, _ in codes}
    for _ in range(rounds):
        for label, code in codes:
            runs[label].append(measured(code))
    extra = {}
    for label, _ in codes:
        plain = statistics.median(run["plain"] for run in runs[label])
        decorated = statistics.median(run["decorated"] for run in runs[label])
        extra[label] = statistics.median(run["decorated"] - run["plain"] for run in runs[label])
        print(
            f"   {label:30} undecorated {plain * 1e9:6.1f} ns, @heal {decorated * 1e9:6.1f} ns "
            f"(+{extra[label] * 1e9:6.1f} ns)"
        )
    if before is not None:
        cost = extra["this code"] - extra[codes[0][0]]
        print(f"   the sample's cost: {cost * 1e9:+.1f} ns a call on average (bound: 2,000 ns)")
    print(f"   calls pickled for the sample: {taken():,} of {SAMPLED:,} (the others are skipped)")
    took = written_cost()
    print(f"   writing a sample of 8 calls to disk (at a crash, at exit): {took * 1e3:.2f} ms")


def taken() -> int:
    """How many of SAMPLED calls of a fresh function the sample's countdown takes (pickles)."""
    from pytest_caretaker.runtime import heal
    from pytest_caretaker.runtime.sample import Sample

    offered = 0
    original = Sample.offer

    def counting(self: Sample, call: object, result: object) -> bool:
        nonlocal offered
        offered += 1
        return original(self, call, result)  # type: ignore[arg-type]

    with tempfile.TemporaryDirectory() as root:
        os.environ["CARETAKER_ROOT"] = root
        Sample.offer = counting  # type: ignore[method-assign]
        try:
            add = heal(lambda a, b: a + b)
            for n in range(SAMPLED):
                add(n, 1)
        finally:
            Sample.offer = original  # type: ignore[method-assign]
    return offered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--before", metavar="DIR", help="An earlier checkout to compare with (5.)")
    parser.add_argument("--sample-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sample_only:  # 5.'s measure, in a process of its own
        print(json.dumps(sample_cost()))
        return
    overhead(args.calls)
    imports()
    recording()
    end_to_end()
    sampling(args.before)


if __name__ == "__main__":
    main()
