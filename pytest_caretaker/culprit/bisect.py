"""Bisect: run failing tests at earlier commits, each checked out in a git worktree of its own
in a temporary folder (never the user's checkout or index), removed after its run.

Each run is ``python -m pytest`` in the worktree with the probe plugin (probe.py), the worktree
first on ``PYTHONPATH`` (so its code is what is imported, whatever an editable install points
at), caretaker itself off, and, where the session's verification runs are sandboxed, inside the
same sandbox as ``caretaker run``'s commands (run/confined.py): it may write only its own folder.
The search order is search.py's; the session's healing time and --heal-timeout bound it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_caretaker.children import WORKER_ENV, worker_token
from pytest_caretaker.culprit.git import Git
from pytest_caretaker.culprit.names import PROBE_ENV
from pytest_caretaker.culprit.search import Search
from pytest_caretaker.verify.channel import kill_group
from pytest_caretaker.verify.environment import candidate_env
from pytest_caretaker.verify.policy import for_project

#: run/confined.py's module and the variable it reads its policy from (run/ is a front end,
#: above this layer: named, not imported; a unit test checks they agree).
CONFINED = "pytest_caretaker.run.confined"
POLICY_ENV = "CARETAKER_RUN_POLICY"
_DROPPED = ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID", "PYTHONPATH")


@dataclass
class Prober:
    """Runs tests at a commit; close() removes what it made."""

    git: Git
    prefix: str  # the project's root inside the repository
    timeout: float
    sandboxed: bool = False
    network: bool = False
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="caretaker-bisect-")))
    runs: int = 0

    def __call__(self, sha: str, tests: Sequence[str], timeout: float) -> dict[str, bool] | None:
        """Whether each test passed at sha (a test missing there failed); None when the commit
        could not be checked out or the run did not finish."""
        self.runs += 1
        workdir = self.folder / f"{self.runs}-{sha[:12]}"
        tree = workdir / "tree"
        workdir.mkdir()
        if self.git.run("worktree", "add", "--detach", "--quiet", str(tree), sha) is None:
            return None
        try:
            ran = self._run(tree, workdir, tests, min(timeout, self.timeout))
        finally:
            self.git.run("worktree", "remove", "--force", str(tree))
            shutil.rmtree(workdir, ignore_errors=True)
        if ran is None:
            return None
        return {test: ran.get(test) == "passed" for test in tests}

    def _run(
        self, tree: Path, workdir: Path, tests: Sequence[str], timeout: float
    ) -> dict[str, str] | None:
        here = tree / self.prefix
        out = workdir / "outcomes.json"
        files = sorted(
            {t.split("::", 1)[0] for t in tests if (here / t.split("::", 1)[0]).exists()}
        )
        if not files:
            return {}
        env = {k: v for k, v in candidate_env(os.environ).items() if k not in _DROPPED}
        paths = [str(here / "src")] if (here / "src").is_dir() else []
        env["PYTHONPATH"] = os.pathsep.join([*paths, str(here)])
        env[PROBE_ENV] = json.dumps({"ids": list(tests), "out": str(out)})
        env[WORKER_ENV] = worker_token()
        command = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:caretaker", "-p", "no:cacheprovider",
            "-p", "pytest_caretaker.culprit.probe", "--no-header", *files,
        ]  # fmt: skip
        if self.sandboxed:
            policy = for_project(tree, workdir, self.network)
            env[POLICY_ENV] = json.dumps(policy)
            command = [sys.executable, "-m", CONFINED, str(workdir), str(here), *command]
        process = subprocess.Popen(
            command,
            cwd=here,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            process.wait(timeout=max(timeout, 0.1))
        except subprocess.TimeoutExpired:
            kill_group(process.pid)
            process.wait()
            return None
        try:
            found = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # the run ended before it reported: nothing passed
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.git.run("worktree", "prune")


#: Commits at which the tests could not be run (checked out, finished in time) before the search
#: gives up.
MAX_LOST = 2
Run = Callable[[str, Sequence[str], float], "dict[str, bool] | None"]


def bisect(search: Search, line: Sequence[str], run: Run, seconds: Callable[[], float]) -> str:
    """Run the search to its end along line (HEAD's first parents, newest first) with run; stop
    when seconds() (what is left of the time) is spent. What stopped it early, or ""."""
    lost: list[str] = []
    while (step := search.next()) is not None:
        at, tests = step
        left = seconds()
        if left <= 0:
            return "the session's healing time ran out"
        passed = run(line[at], tests, left)
        if passed is None:  # not green there, as far as anyone can tell
            lost.append(line[at][:10])
            if len(lost) == MAX_LOST:
                return f"the tests could not be run at {' and '.join(lost)}"
        search.record(at, passed or dict.fromkeys(tests, False))
    return ""
