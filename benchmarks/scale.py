"""Speed and scale, measured side by side in one run (not part of the tests).

    python benchmarks/scale.py [--repeat 5]

1. Idle overhead: a generated 2,000-test suite, plain `pytest` with the plugin installed and
   with --heal against `-p no:caretaker`, interleaved, medians of wall and CPU time (idle.py).
2. Heal wall time for 16 independent failures against the scripted server answering after 1 s,
   against the ideal ceil(16 / concurrency) x 1 s + the suite's own time, at concurrency 1, 4, 8,
   with the model process started by the session (as in CI) and kept by the one before;
   and the timeline of the session at concurrency 4 (what runs when, on which thread).
3. 16 failures with one root cause: model requests made, and wall time.
4. Verification cost per candidate: caretaker's warm server that collected the tests once (a
   run forks from it), the warm server that runs a whole session per fork, and a plain
   `python -m pytest <id>` subprocess (medians, ratios).
5. Prompt tokens per heal on the example bugs (examples/bugs), as litellm counts them for
   gpt-4o-mini: median and max.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from idle import overhead, report, suite
from keeping import MODES, end_kept, keeping
from timeline import Timeline

from pytest_caretaker.testing import Scripted, ScriptedServer, text, tool_call
from pytest_caretaker.verify.runner import Runner

ROOT = Path(__file__).resolve().parent.parent
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
LATENCY = 1.0


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    return time.perf_counter() - started, done.stdout


def heal_command(server: ScriptedServer) -> list[str]:
    model = ["--heal-model", "openai/gpt-4o-mini", "--heal-api-base", server.base_url]
    return [*PYTEST, "--heal", *model]


def idle(work: Path, repeat: int) -> None:
    project = suite(work)
    print("1. idle overhead, 2,000 tests (benchmarks/idle.py)")
    report(overhead(project, repeat), repeat)


def independent(work: Path) -> None:
    project = work / "independent"
    project.mkdir()
    count = 16
    (project / "lib.py").write_text(
        "".join(f"def f{n}(x):\n    return x + 1\n\n\n" for n in range(count))
    )
    (project / "test_lib.py").write_text(
        "import lib\n\n\n"
        + "".join(f"def test_{n}():\n    assert lib.f{n}(1) == 1\n\n\n" for n in range(count))
    )

    def respond(body: dict[str, Any]) -> Scripted:
        found = re.match(
            r"The test `test_lib\.py::test_(\d+)` fails", body["messages"][1]["content"]
        )
        n = int(found.group(1)) if found else 0
        code = f"def f{n}(x):\n    return x\n"
        return tool_call(
            "off by one", [{"path": "lib.py", "function": f"f{n}", "code": code}], delay=LATENCY
        )

    suite, _ = timed(PYTEST, project)
    print(
        f"2. {count} independent failures, {LATENCY:g} s model latency (suite alone {suite:.2f} s)"
    )
    kept_env = keeping(MODES[1][1])
    try:
        for label, seconds in MODES:
            env = keeping(seconds)
            if seconds:
                with ScriptedServer(responder=respond).start() as server:
                    timed(heal_command(server), project, env)  # starts it: not counted
            print(f"   {label}:")
            for concurrency in (1, 4, 8):
                with ScriptedServer(responder=respond).start() as server:
                    command = [*heal_command(server), "--heal-concurrency", str(concurrency)]
                    wall, out = timed(command, project, env)
                    requests = len(server.requests)
                healed = len(re.findall(r"^HEALED ", out, re.M))
                ideal = math.ceil(count / concurrency) * LATENCY + suite
                print(
                    f"     concurrency {concurrency}: healed {healed}/{count}, "
                    f"{requests} requests, {wall:6.2f} s; ideal {ideal:6.2f} s; "
                    f"ratio {wall / ideal:5.2f}x"
                )
    finally:
        end_kept(kept_env)
    print("   (#20 done when: ratio <= 1.3 at concurrency 4 and 8)")
    with ScriptedServer(responder=respond).start() as server:
        print("   timeline at concurrency 4 (s from the start):")
        print(
            in_process(project, [*heal_command(server)[len(PYTEST) :], "--heal-concurrency", "4"])
        )


def in_process(project: Path, args: list[str]) -> str:
    """Run pytest with args in this process, watched (benchmarks/timeline.py); the timeline."""
    import pytest

    cwd = os.getcwd()
    os.chdir(project)
    os.environ["CARETAKER_MODEL_KEEP"] = "0"  # a first heal's: the model process starts
    try:
        with Timeline() as watched, contextlib.redirect_stdout(io.StringIO()):
            watched.mark("pytest.main starts")
            pytest.main(["-q", "-p", "no:cacheprovider", *args, str(project)])
            watched.mark("pytest.main ends")
    finally:
        os.chdir(cwd)
    return watched.text()


def one_cause(work: Path) -> None:
    project = work / "one_cause"
    project.mkdir()
    count = 16
    (project / "calc.py").write_text("def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n")
    (project / "test_calc.py").write_text(
        "from calc import mean\n\n\n"
        + "".join(
            f"def test_{n}():\n    assert mean([{n}, {n}]) == {n}\n\n\n"
            for n in range(1, count + 1)
        )
    )
    fix = tool_call(
        "n, not n + 1",
        [
            {
                "path": "calc.py",
                "function": "mean",
                "code": "def mean(xs):\n    return sum(xs) / len(xs)\n",
            }
        ],
        delay=LATENCY,
    )
    with ScriptedServer(responder=lambda body: fix).start() as server:
        wall, out = timed(heal_command(server), project)
        requests = len(server.requests)
    healed = len(re.findall(r"^HEALED ", out, re.M))
    print(f"3. {count} failures, one root cause, {LATENCY:g} s model latency")
    print(f"   healed {healed}/{count} with {requests} model request(s) in {wall:6.2f} s")


def verification(work: Path, repeat: int) -> None:
    project = work / "verify"
    shutil.copytree(ROOT / "examples/quickstart", project)
    node = "test_textstats.py::test_moving_average"
    source = (project / "textstats.py").read_bytes()
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    samples: dict[str, list[float]] = {"collected": [], "session": [], "plain": []}
    with (
        Runner(project, project, args, 60.0) as collected,
        Runner(project, project, args, 60.0) as whole,
    ):
        collected.collect = ("test_textstats.py",)
        for runner in (collected, whole):
            runner.run([node], {"textstats.py": source})  # the server's start is paid once
        for _ in range(repeat * 2):  # interleaved, so drift hits all alike
            for name, runner in (("collected", collected), ("session", whole)):
                started = time.perf_counter()
                runner.run([node], {"textstats.py": source})
                samples[name].append(time.perf_counter() - started)
            samples["plain"].append(timed([*PYTEST, node], project)[0])
    a, b, c = (statistics.median(samples[name]) for name in ("collected", "session", "plain"))
    print("4. verification per candidate")
    print(f"   warm server, collected once, fork    {a * 1000:6.1f} ms (median of {repeat * 2})")
    print(f"   warm server, whole session per fork  {b * 1000:6.1f} ms")
    print(f"   plain python -m pytest <id>          {c * 1000:6.1f} ms")
    print(f"   plain / collected                    {c / a:6.1f}x   (#20: >= 30x)")
    print(f"   plain / session per fork             {c / b:6.1f}x")


def prompt_tokens(work: Path) -> None:
    import litellm

    catalog = json.loads((ROOT / "examples/bugs/catalog.json").read_text())
    names = sorted(catalog)[:12]
    project = work / "bugs"
    project.mkdir()
    for name in names:
        for file in (f"{name}.py", f"test_{name}.py"):
            shutil.copy(ROOT / "examples/bugs" / file, project / file)
    with ScriptedServer(responder=lambda body: text("no idea")).start() as server:
        timed([*heal_command(server), "--heal-attempts", "1"], project)
        tokens = [
            litellm.token_counter(model="gpt-4o-mini", messages=request["messages"])
            for request in server.requests
        ]
    print(f"5. prompt tokens per heal, {len(tokens)} failures of {len(names)} example bugs")
    print(f"   median {statistics.median(tokens):,.0f}, max {max(tokens):,}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    work = Path(tempfile.mkdtemp(prefix="caretaker-scale-")).resolve()
    started = time.perf_counter()
    try:
        idle(work, repeat)
        independent(work)
        one_cause(work)
        verification(work, repeat)
        prompt_tokens(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"(benchmark took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
