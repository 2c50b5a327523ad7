"""Regression-aware healing, measured (#35): 30 multi-commit regressions (culprit_corpus.py), each
healed by ``pytest --heal`` with the built-in repairer and no model, side by side:

- ``none``: no history (caretaker as before: the code as it is now, no change to go by);
- ``history``: a ``pytest --heal`` session recorded the green commit (.caretaker/states.jsonl);
- ``bisect``: no history, ``--heal-bisect`` finds the green commit in git worktrees.

    python benchmarks/culprit.py [--limit N] [--modes none,history,bisect] [--json out.json]

Each case is a real git repository in a temporary folder: the green commit (a module and its
tests), 1 to 3 unrelated commits, the breaking commit (two statements changed, or one statement
broken beside an intended change that a fix must keep), 1 to 4 unrelated commits. Reported per
mode: healed (the failing tests pass with the patch), exact (the patched module is the green one
with the intended change kept: the bug undone and nothing else), the median wall time of the
healing runs that healed, and the culprit named correctly (last-run.json's first failing commit
is the breaking one). Wall times are of the whole ``pytest --heal`` process.
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

sys.path.insert(0, str(Path(__file__).parent))
from culprit_corpus import Break, Module, applied, cases

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "PYTHONDONTWRITEBYTECODE": "1",
}
for name in ("PYTEST_ADDOPTS", "CARETAKER_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
    ENV.pop(name, None)
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--heal-model", "builtin"]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, env=ENV, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def commit(root: Path, message: str, files: dict[str, str]) -> str:
    for name, text in files.items():
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def build(root: Path, index: int, module: Module, found: Break, mode: str) -> str:
    """The repository of one case; the breaking commit's id."""
    git(root, "init", "-q", "-b", "main")
    source, tests = f"{module.name}.py", f"test_{module.name}.py"
    commit(
        root, "green", {".gitignore": ".caretaker/\n", source: module.source, tests: module.tests}
    )
    if mode == "history":
        subprocess.run([*PYTEST, "--heal"], cwd=root, env=ENV, capture_output=True, check=False)
    notes: list[str] = []
    for n in range(1 + index % 3):
        notes.append(f"note {n}")
        commit(root, f"docs: note {n}", {"NOTES.md": "\n".join(notes) + "\n"})
    broken = applied(applied(module.source, found.intended), found.bug)
    sha = commit(root, f"{module.name}: {found.shape} change", {source: broken})
    for n in range(1 + index % 4):
        commit(root, f"chore: bump {n}", {"VERSION": f"1.{n}\n"})
    return sha


def heal(root: Path, mode: str) -> tuple[float, dict[str, object]]:
    extra = ["--heal-bisect"] if mode == "bisect" else []
    began = time.monotonic()
    subprocess.run([*PYTEST, "--heal", *extra], cwd=root, env=ENV, capture_output=True, check=False)
    seconds = time.monotonic() - began
    try:
        data = json.loads((root / ".caretaker" / "last-run.json").read_text())
    except (OSError, ValueError):
        data = {}
    return seconds, data


def judge(
    root: Path, module: Module, found: Break, sha: str, data: dict[str, object]
) -> dict[str, object]:
    problems = list(data.get("problems", []))  # type: ignore[call-overload]
    healed = bool(problems) and all(p["outcome"] != "not healed" for p in problems)
    exact = False
    patch = root / ".caretaker" / "heal.patch"
    if healed and patch.is_file():
        applied_ok = subprocess.run(["git", "apply", str(patch)], cwd=root, env=ENV, check=False)
        wanted = applied(module.source, found.intended)
        exact = applied_ok.returncode == 0 and (root / f"{module.name}.py").read_text() == wanted
    named = [
        test.get("culprit", {}).get("first_failing") or {} for p in problems for test in p["tests"]
    ]
    culprit = bool(named) and all(n.get("sha") == sha for n in named)
    return {"healed": healed, "exact": exact, "culprit": culprit}


def run_case(index: int, module: Module, found: Break, mode: str) -> dict[str, object]:
    root = Path(tempfile.mkdtemp(prefix="caretaker-culprit-"))
    try:
        sha = build(root, index, module, found, mode)
        seconds, data = heal(root, mode)
        verdict = judge(root, module, found, sha, data)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"case": f"{module.name}/{found.shape}", "mode": mode, "seconds": seconds, **verdict}


def table(rows: list[dict[str, object]], modes: list[str], total: int) -> str:
    lines = [f"{'':28}" + "".join(f"{mode:>12}" for mode in modes)]
    for label, key in (
        ("healed", "healed"),
        ("exact", "exact"),
        ("culprit named correctly", "culprit"),
    ):
        counts = [sum(1 for r in rows if r["mode"] == m and r[key]) for m in modes]
        lines.append(f"{label:28}" + "".join(f"{f'{c}/{total}':>12}" for c in counts))
    medians = []
    for mode in modes:
        times = [float(r["seconds"]) for r in rows if r["mode"] == mode and r["healed"]]  # type: ignore[arg-type]
        medians.append(f"{statistics.median(times):.1f} s" if times else "—")
    lines.append(f"{'median time to a fix':28}" + "".join(f"{m:>12}" for m in medians))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="Only the first N cases")
    parser.add_argument("--modes", default="none,history,bisect")
    parser.add_argument("--json", help="Write every row to this file")
    args = parser.parse_args()
    modes = args.modes.split(",")
    chosen = cases()[: args.limit or None]
    rows: list[dict[str, object]] = []
    for index, (module, found) in enumerate(chosen):
        for mode in modes:  # interleaved: drift on a busy machine hits each mode alike
            row = run_case(index, module, found, mode)
            rows.append(row)
            marks = "".join(k[0].upper() if row[k] else "." for k in ("healed", "exact", "culprit"))
            print(f"{row['case']:28} {mode:8} {marks} {float(row['seconds']):6.1f} s", flush=True)  # type: ignore[arg-type]
    print()
    print(table(rows, modes, len(chosen)))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
