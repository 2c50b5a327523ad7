"""One heal run of benchmarks/real_bugs.py on one bug, and what came of it.

A run works in its own clone of the bug's repository (the buggy state, committed). It runs
`pytest <the failing tests' files> --heal ...`, reads `.caretaker/last-run.json`, applies
`.caretaker/heal.patch` and runs those files again: a fix is *proved* when every failing test
passes after the patch and no other test of the files fails. For the built-in repairer, a proved
fix is *right* when every definition it changed reads, as an AST without docstrings, as the
developer's fix has it (and the fix changed it too), else *wrong*.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import real_bugs_code as code
import real_bugs_lib as lib
import real_projects_lib

HEALED = ("healed", "from cache", "shared")


@dataclass(frozen=True)
class Setup:
    project: lib.Project
    bug: lib.Bug
    gitdir: Path
    python: Path
    caretaker: Path | None  # None: the pytest-caretaker installed here
    timeout: float


@dataclass
class Heal:
    outcome: str = "error"  # "healed", "unsure", "not healed", "error"
    proved: bool = False
    reason: str = ""
    seconds: float = 0.0
    patched: list[str] = field(default_factory=list)  # "path::qualname" the patch changed


def clone(repo: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(repo), str(dest)], check=True)
    return dest


def heal(setup: Setup, repo: Path, more: list[str]) -> Heal:
    """Run `pytest --heal` with more options in repo; read its outcome; prove its patch."""
    files = sorted({nodeid.split("::", 1)[0] for nodeid in setup.bug.tests})
    env = lib.environment(setup.project, repo, setup.python, setup.caretaker)
    env["CARETAKER_MODEL_KEEP"] = "0"
    command = lib.pytest_argv(setup.python, setup.project, *files, "--heal", *more)
    command += ["--heal-workers", "1", "--heal-model-keep", "0"]
    done = real_projects_lib.run(command, repo, env, setup.timeout)
    (repo.parent / f"{repo.name}.out").write_text(done.stdout, encoding="utf-8")
    found = Heal(seconds=round(done.seconds, 1))
    if done.returncode is None:
        found.reason = f"killed at {setup.timeout:g} s"
        return found
    last = repo / ".caretaker" / "last-run.json"
    if not last.exists():
        found.reason = "no last-run.json: " + (done.stdout.strip().splitlines() or [""])[-1][:100]
        return found
    found.outcome, found.reason = outcome(json.loads(last.read_text(encoding="utf-8")), setup.bug)
    if found.outcome in ("healed", "unsure"):
        prove(setup, repo, files, found)
    return found


def outcome(report: dict[str, object], bug: lib.Bug) -> tuple[str, str]:
    """The bug's outcome from last-run.json: healed when every failing test was, unsure when
    some were unsure and the others healed, else not healed (with the first reason)."""
    tests: dict[str, str] = {}
    reasons = []
    for problem in report.get("problems", []):  # type: ignore[attr-defined]
        for test in problem.get("tests", []):
            tests[test["id"]] = test["outcome"]
        if problem.get("reason"):
            reasons.append(str(problem["reason"]))
    said = [tests.get(nodeid, "missing") for nodeid in bug.tests]
    if all(word in HEALED for word in said):
        return "healed", ""
    if all(word in (*HEALED, "unsure") for word in said):
        return "unsure", ""
    missing = sum(word == "missing" for word in said)
    reason = reasons[0] if reasons else f"{missing} failing tests not in last-run.json"
    return "not healed", reason.splitlines()[0][:160]


def prove(setup: Setup, repo: Path, files: list[str], found: Heal) -> None:
    patch = repo / ".caretaker" / "heal.patch"
    if not (patch.exists() and patch.stat().st_size):
        found.reason = "no patch"
        return
    applied = subprocess.run(["git", "apply", str(patch)], cwd=repo, capture_output=True, text=True)
    if applied.returncode:
        found.reason = "the patch does not apply: " + applied.stderr.strip()[:100]
        return
    found.patched = patched(setup, repo)
    after = lib.outcomes(
        setup.project, repo, setup.python, files, repo.parent / f"{repo.name}.jsonl", setup.timeout
    )
    if after is None:
        found.reason = "the tests did not finish after the patch"
        return
    failed = sorted(n for n, o in after.items() if o.outcome == "failed")
    still = [n for n in setup.bug.tests if after.get(n, lib.Outcome("missing")).outcome != "passed"]
    found.proved = not failed and not still
    if not found.proved:
        found.reason = f"after the patch {len(still)} failing tests still fail, {len(failed)} fail"


def patched(setup: Setup, repo: Path) -> list[str]:
    """The definitions the applied patch changed ("path::qualname")."""
    names = subprocess.run(
        ["git", "diff", "--name-only", "HEAD"], cwd=repo, capture_output=True, text=True
    ).stdout.split()
    found = []
    for path in names:
        before = lib.show(repo / ".git", "HEAD", path) or b""
        after = (repo / path).read_text(encoding="utf-8", errors="replace")
        for change in code.changes(before.decode("utf-8", "replace"), after):
            found.append(f"{path}::{change.qualname}")
    return found


def right(setup: Setup, repo: Path) -> bool:
    """Whether every definition the applied patch changed is as the developer's fix has it."""
    for entry in patched(setup, repo):
        path, qualname = entry.split("::", 1)
        fixed = lib.show(setup.gitdir, setup.bug.fix, path)
        if fixed is None:
            return False
        theirs = code.definitions(fixed.decode("utf-8", "replace")).get(qualname)
        ours = code.definitions((repo / path).read_text(encoding="utf-8")).get(qualname)
        if theirs is None and ours is None:  # both removed it
            continue
        if theirs is None or ours is None or theirs.key != ours.key:
            return False
    return True


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
