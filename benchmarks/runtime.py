"""Runtime healing's costs, measured side by side in one run (not a test).

    python benchmarks/runtime.py [--calls 1000000]

1. Record mode with no exception: a call of an @heal function against the same call of the
   undecorated one (best of 7 repeats of --calls calls each, per call); the difference is the
   decorator's cost, which the issue bounds at 1 µs. Also a method and a call with keywords,
   and heal mode's wrapper (which pickles the arguments before each call: development only).
2. Importing pytest_caretaker.runtime against an empty interpreter (median of 7 processes).
3. What an exception costs in record mode: recording one crash (the record written to disk).
4. Heal mode end to end against the scripted server: the first process (repair by the model,
   proof by replay in the sandbox) and a later one that uses the kept fix, against the script
   run plainly.
"""

from __future__ import annotations

import argparse
import contextlib
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    args = parser.parse_args()
    overhead(args.calls)
    imports()
    recording()
    end_to_end()


if __name__ == "__main__":
    main()
