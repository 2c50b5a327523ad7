"""A suite run in shards, healed per shard and merged (#49), against one session healing it all,
side by side in one run (not part of the tests).

    python benchmarks/sharded.py [--tests 2000] [--shards 4]

A generated project: 24 modules of 5 functions, 40 test files of tests spread over them, 6 bugs
(each a function returning one too many), each failing tests in every shard. The model is the
scripted server, answering each request with the fixed function it is asked about, so every
repair costs one request and the requests count the repairs. Three ways, each from a clean copy:

1. one session: ``pytest --heal`` over the whole suite;
2. shards: each shard's ``pytest --heal`` over its files (one after another here; in CI they run
   at once, so the CI wall time is the slowest shard's), then ``caretaker merge --verify``;
3. the same with a fix memory the shards share (``CARETAKER_FIX_MEMORY``): a shard tries the fix
   an earlier shard proved before asking the model.

Reported: wall seconds (the merge and verify apart), model requests, problems healed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_caretaker.testing import Scripted, ScriptedServer, tool_call

MODULES, FUNCTIONS, FILES = 24, 5, 40
BUGS = [(m, 2) for m in range(0, MODULES, 4)]  # 6 bugs: f2 of every 4th module


def function(m: int, f: int, buggy: bool) -> str:
    extra = " + 1" if buggy else ""
    return f"def f{f}(x):\n    return x * {m + 1} + {f}{extra}\n"


def generate(root: Path, tests: int) -> None:
    (root / "gen").mkdir(parents=True)
    (root / "gen" / "__init__.py").write_text("")
    for m in range(MODULES):
        body = "\n\n".join(function(m, f, (m, f) in BUGS) for f in range(FUNCTIONS))
        (root / "gen" / f"mod{m}.py").write_text(body)
    per_file = tests // FILES
    for n in range(FILES):
        lines = []
        for t in range(per_file):
            m, f = (n * per_file + t) % MODULES, (n + t) % FUNCTIONS
            x = t % 7
            lines.append(
                f"def test_{t}():\n    from gen.mod{m} import f{f}\n"
                f"    assert f{f}({x}) == {x * (m + 1) + f}\n"
            )
        (root / f"test_{n:02d}.py").write_text("\n\n".join(lines))
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")


def responder(body: dict[str, Any]) -> Scripted:
    prompt = str(body["messages"][1]["content"])
    for m, f in BUGS:
        if f"## gen/mod{m}.py::f{f} (editable)" in prompt:
            code = function(m, f, False)
            return tool_call(
                "one too many", [{"path": f"gen/mod{m}.py", "function": f"f{f}", "code": code}]
            )
    return tool_call("nothing", [])


def run(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - began, done.stdout + done.stderr


def healed(folder: Path) -> int:
    data = json.loads((folder / "last-run.json").read_text())
    return int(data["totals"]["problems_healed"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--shards", type=int, default=4)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="caretaker-sharded-"))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CARETAKER_", "PYTEST_"))}
    base |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "CARETAKER_MODEL_KEEP": "0"}
    try:
        source = work / "source"
        generate(source, options.tests)
        with ScriptedServer(responder=responder).start() as server:
            heal = ["--heal", "--heal-model", "openai/gpt-4o-mini", "--heal-api-base"]
            pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *heal]
            pytest.append(server.base_url)
            rows = []
            one = work / "one"
            shutil.copytree(source, one)
            seconds, _ = run(pytest, one, base)
            rows.append(
                (
                    "one session",
                    seconds,
                    0.0,
                    seconds,
                    len(server.requests),
                    healed(one / ".caretaker"),
                )
            )
            for label, shared in (("shards", False), ("shards, shared memory", True)):
                server.requests.clear()
                env = dict(base)
                if shared:
                    env["CARETAKER_FIX_MEMORY"] = str(work / f"memory-{label}")
                folders, times = [], []
                for shard in range(options.shards):
                    copy = work / f"{label}-{shard}"
                    shutil.copytree(source, copy)
                    files = sorted(p.name for p in copy.glob("test_*.py"))[shard :: options.shards]
                    seconds, _ = run([*pytest, *files], copy, env)
                    times.append(seconds)
                    folders.append(copy / ".caretaker")
                merging = work / f"{label}-merge"
                shutil.copytree(source, merging)
                merge = [sys.executable, "-m", "pytest_caretaker", "merge", *map(str, folders)]
                merged, out = run([*merge, "--verify"], merging, base)
                kept = len(re.findall(r"^caretaker: KEPT", out, re.M))
                rows.append(
                    (label, sum(times), merged, max(times) + merged, len(server.requests), kept)
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{options.tests} tests in {FILES} files, {len(BUGS)} bugs, {options.shards} shards")
    print(
        f"  {'way':24} {'heal s':>8} {'merge s':>8} {'CI wall s':>10} {'requests':>9} {'fixes':>6}"
    )
    for label, heal_s, merge_s, wall, requests, fixes in rows:
        print(f"  {label:24} {heal_s:8.1f} {merge_s:8.1f} {wall:10.1f} {requests:9d} {fixes:6d}")
    print(
        "  (heal s: the sessions' sum; CI wall: the slowest shard and the merge, as CI runs them)"
    )


if __name__ == "__main__":
    main()
