"""What a heal costs beyond the model, measured side by side in one run (not part of the tests).

    python benchmarks/heal_latency.py [--repeat 5] [--model-env]

1. Wall time of `pytest` on the quickstart example, plain and with `--heal` against the scripted
   OpenAI-compatible server answering at once (zero latency): the difference is what caretaker
   itself costs for one heal. Twice: the example as it is (the failure comes last, nothing hides
   litellm's import or the warm server's start) and with a passing test that takes 3 s after the
   failing one (issue #20: what starts at the first failure is then hidden by the run). Each
   both ways: the first heal, which starts the model process (CARETAKER_MODEL_KEEP=0, as in CI),
   and the next one, which finds it kept by the session before (llm/kept.py).
2. Verification cost per candidate: the warm server that collected the tests once (a run forks
   from it), the warm server without collecting (a whole pytest session per run in a fork), and
   a fresh `python -m pytest <id>`, as medians and ratios (#20: fresh / collected >= 30).
3. A timeline of one first heal (in this process): what runs when, on which thread.
4. With --model-env (#48; builds two environments: minutes): the first heal (the model process
   starts, CARETAKER_MODEL_KEEP=0) with litellm in the test environment (a fresh install of
   ``pytest-caretaker[llm]``) and through caretaker's model environment (a fresh base install,
   its ``caretaker model setup`` pinned to this environment's litellm), interleaved.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from keeping import MODES, end_kept, keeping
from timeline import Timeline

from pytest_caretaker.testing import ScriptedServer, tool_call
from pytest_caretaker.verify.runner import Runner

ROOT = Path(__file__).resolve().parent.parent
FIXED = (
    (ROOT / "examples/quickstart/textstats.py").read_text().replace("- window)", "- window + 1)")
)
NODE = "test_textstats.py::test_moving_average"
#: Runs after the failing test (pytest runs files in order): the run goes on for SLOW seconds.
SLOW = 3.0


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, capture_output=True, check=False, env=env)
    return time.perf_counter() - started


def overheads(project: Path, server: ScriptedServer, repeat: int) -> None:
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    heal = [*base, "--heal", "--heal-model", "openai/gpt-4o-mini"]
    heal += ["--heal-api-base", server.base_url]
    slow = project.parent / "slow"
    shutil.copytree(project, slow)
    slow_test = f"import time\n\n\ndef test_slow():\n    time.sleep({SLOW})\n"
    (slow / "test_zz_slow.py").write_text(slow_test)
    envs = [(label, keeping(seconds)) for label, seconds in MODES]
    rows = []
    try:
        for where, label in ((project, "as it is"), (slow, f"+{SLOW:g} s of run after it")):
            timed(heal, where, envs[1][1])  # the kept model process starts: not counted
            times: dict[str, list[float]] = {"plain": [], **{mode: [] for mode, _ in envs}}
            for _ in range(repeat):  # interleaved, so drift hits all alike
                times["plain"].append(timed(base, where))
                for mode, env in envs:
                    times[mode].append(timed(heal, where, env))
            rows.append((label, {name: statistics.median(t) for name, t in times.items()}))
    finally:
        end_kept(envs[1][1])
    print(f"1. one heal at zero model latency (median of {repeat}, interleaved)")
    for label, medians in rows:
        plain = medians["plain"]
        print(f"   the failure {label}: plain run {plain:5.2f} s")
        for mode, _ in envs:
            over = medians[mode] - plain
            print(
                f"     --heal, {mode:24} {medians[mode]:5.2f} s, over the plain run {over:5.2f} s"
            )
    print("   (#20 done when: <= 1.5 s with the import hidden, <= 3 s otherwise)")


def verification(project: Path, repeat: int) -> None:
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
    patch = {"textstats.py": FIXED.encode()}
    per_run: dict[str, float] = {}
    for mode in ("collected", "warm", "cold"):
        with Runner(project, project, args, timeout=60, warm=mode != "cold") as runner:
            if mode == "collected":
                runner.collect = ("test_textstats.py",)
            runner.run([NODE], patch)  # start-up, not counted
            samples = []
            for _ in range(max(repeat * 4, 12)):
                started = time.perf_counter()
                result = runner.run([NODE], patch)
                samples.append(time.perf_counter() - started)
                assert result.outcomes[NODE].outcome == "passed", result
            per_run[mode] = statistics.median(samples)
    fresh = [
        timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", NODE], project)
        for _ in range(max(repeat, 3))
    ]
    per_run["fresh"] = statistics.median(fresh)
    print("2. verification per candidate (a patched module the test imports)")
    print(f"   warm server, collected once, fork   {per_run['collected'] * 1000:7.1f} ms")
    print(f"   warm server, session per fork       {per_run['warm'] * 1000:7.1f} ms")
    print(f"   worker in a fresh process           {per_run['cold'] * 1000:7.1f} ms")
    print(f"   plain python -m pytest <id>         {per_run['fresh'] * 1000:7.1f} ms")
    print(f"   fresh pytest / collected            {per_run['fresh'] / per_run['collected']:7.1f}x")
    print(f"   fresh pytest / session per fork     {per_run['fresh'] / per_run['warm']:7.1f}x")
    print("   (#20 done when: fresh / collected >= 30x)")


def timeline(project: Path, server: ScriptedServer) -> None:
    import pytest

    work = project.parent / "timeline"
    shutil.copytree(project, work)
    heal = ["-q", "-p", "no:cacheprovider", "--heal", "--heal-model", "openai/gpt-4o-mini"]
    heal += ["--heal-api-base", server.base_url, "-p", "no:randomly", str(work)]
    cwd = os.getcwd()
    os.chdir(work)
    os.environ["CARETAKER_MODEL_KEEP"] = "0"  # the first heal's: the model process starts
    try:
        with Timeline() as watched, contextlib.redirect_stdout(io.StringIO()):
            watched.mark("pytest.main starts")
            pytest.main(heal)
            watched.mark("pytest.main ends")
    finally:
        os.chdir(cwd)
    print("3. timeline of one heal (s from the start; warm servers are processes of their own)")
    print(watched.text())


def first_heal_both_ways(project: Path, server: ScriptedServer, repeat: int) -> None:
    from importlib.metadata import version

    from footprint import checkout_copy, install, model_environment

    work = project.parent / "environments"
    work.mkdir()
    source = checkout_copy(work)
    base_python, _, _ = install(work, "base", str(source))
    release = f"litellm=={version('litellm')}"  # the same release both ways
    llm_python, _, _ = install(work, "llm", f"{source}[llm]", release)  # no test tools
    models = work / "models"
    model_environment(base_python, models)
    first = {**os.environ, "CARETAKER_MODEL_KEEP": "0"}
    args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--heal"]
    args += ["--heal-model", "openai/gpt-4o-mini", "--heal-api-base", server.base_url]
    ways = {
        "[llm] (litellm in the test environment)": ([str(llm_python), *args], first),
        "caretaker's model environment": (
            [str(base_python), *args],
            {**first, "CARETAKER_MODEL_ENV": str(models)},
        ),
    }
    for command, env in ways.values():  # bytecode and the file system cache: not counted
        timed(command, project, env)
    times: dict[str, list[float]] = {way: [] for way in ways}
    for round_ in range(max(repeat, 5)):
        for way in ways if round_ % 2 == 0 else reversed(list(ways)):
            command, env = ways[way]
            times[way].append(timed(command, project, env))
    medians = {way: statistics.median(t) for way, t in times.items()}
    print(f"4. the first heal (model process started), median of {max(repeat, 5)}, interleaved")
    for way, seconds in medians.items():
        print(f"   {way:42} {seconds:5.2f} s")
    through, extra = medians.values()
    print(f"   (#48 done when: model environment / [llm] <= 1: {extra / through:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--model-env", action="store_true", help="section 4 only")
    options = parser.parse_args()
    repeat = options.repeat
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    work = Path(tempfile.mkdtemp(prefix="caretaker-bench-")).resolve()
    try:
        project = work / "quickstart"
        shutil.copytree(ROOT / "examples/quickstart", project)
        edit = {
            "path": "textstats.py",
            "function": "moving_average",
            "code": FIXED.split('"""', 2)[2].strip() + "\n",
        }
        fix = tool_call("off by one", [edit])
        with ScriptedServer(responder=lambda body: fix).start() as server:
            if options.model_env:
                first_heal_both_ways(project, server, repeat)
                return
            overheads(project, server, repeat)
            verification(project, repeat)
            timeline(project, server)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
