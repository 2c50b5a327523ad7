"""What a heal costs beyond the model, measured side by side in one run (not part of the tests).

    python benchmarks/heal_latency.py [--repeat 5]

1. Wall time of `pytest` on the quickstart example, plain and with `--heal` against the scripted
   OpenAI-compatible server answering at once (zero latency): the difference is what caretaker
   itself costs for one heal (traced rerun, prompt, verification, report).
2. Verification cost per candidate: the warm fork server against a fresh interpreter per run
   (`python -m pytest_caretaker.verify.worker`, the same as a plain `python -m pytest <id>` plus the
   in-memory patch), as medians and their ratio.
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
from pathlib import Path

from pytest_caretaker.testing import ScriptedServer, tool_call
from pytest_caretaker.verify.runner import Runner

ROOT = Path(__file__).resolve().parent.parent
FIXED = (
    (ROOT / "examples/quickstart/textstats.py").read_text().replace("- window)", "- window + 1)")
)
NODE = "test_textstats.py::test_moving_average"


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    work = Path(tempfile.mkdtemp(prefix="caretaker-bench-")).resolve()
    try:
        project = work / "quickstart"
        shutil.copytree(ROOT / "examples/quickstart", project)
        fix = tool_call(
            "off by one",
            [
                {
                    "path": "textstats.py",
                    "function": "moving_average",
                    "code": FIXED.split('"""', 2)[2].strip() + "\n",
                }
            ],
        )
        server = ScriptedServer(responder=lambda body: fix).start()
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        heal = [
            *base,
            "--heal",
            "--heal-model",
            "openai/gpt-4o-mini",
            "--heal-api-base",
            server.base_url,
        ]
        plain_times, heal_times = [], []
        for _ in range(repeat):  # interleaved, so drift hits both alike
            plain_times.append(timed(base, project))
            heal_times.append(timed(heal, project))
        server.stop()
        plain, healed = statistics.median(plain_times), statistics.median(heal_times)
        print(f"pytest on the example, plain          {plain:6.2f} s (median of {repeat})")
        print(f"pytest on the example, --heal          {healed:6.2f} s")
        print(
            f"  heal overhead at zero model latency  {healed - plain:6.2f} s "
            f"({len(server.requests)} model requests in all)"
        )

        args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(project)]
        patch = {"textstats.py": FIXED.encode()}
        per_run: dict[str, float] = {}
        for mode in ("warm", "cold"):
            with Runner(project, project, args, timeout=60, warm=mode == "warm") as runner:
                runner.run([NODE], patch)  # start-up, not counted
                samples = []
                for _ in range(max(repeat * 2, 6)):
                    started = time.perf_counter()
                    result = runner.run([NODE], patch)
                    samples.append(time.perf_counter() - started)
                    assert result.outcomes[NODE].outcome == "passed", result
                per_run[mode] = statistics.median(samples)
        print(f"verification per candidate, warm fork  {per_run['warm']:6.3f} s")
        print(f"verification per candidate, fresh proc {per_run['cold']:6.3f} s")
        print(f"  fresh / warm                         {per_run['cold'] / per_run['warm']:6.1f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
