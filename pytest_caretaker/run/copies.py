"""Run any command on a scratch copy of the project with a candidate's files written in: how a
command that is not a Python script or module (a type checker, a linter, a shell script) is run
again with a fix, never on the user's files.

Each run gets a fresh copy (a command may write into its tree: a cache, a build, or a candidate
that tampers with the checker; the next run must not see it). The files copied are git's view of
the project (tracked and untracked but not ignored) when it is a repository, else every file but
virtual environments, caches and VCS folders. Arguments and PYTHONPATH entries that are paths
inside the project are pointed at the copy, and the copy's path in the output back at the
project, so that what the command reports names the user's files. With a sandbox policy the
command starts through confined.py: it writes only inside its run's folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pytest_caretaker.run.command import NOT_FOUND, Ran, launch
from pytest_caretaker.run.confined import POLICY_ENV
from pytest_caretaker.verify.protocol import SandboxPolicy

CONFINED = "pytest_caretaker.run.confined"
#: Folders never copied when the project is not a git repository.
SKIPPED = frozenset(
    {".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "node_modules", "__pycache__",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", ".caretaker", "build", "dist"}
)  # fmt: skip
#: A project with more files than this is not copied per run.
MAX_FILES = 20_000


class TooLarge(Exception):
    """The project has too many files to copy for each run; str() says what to do."""


@dataclass
class Copies:
    argv: Sequence[str]
    root: Path
    env: Mapping[str, str]
    timeout: float
    scratch: Path
    policy: SandboxPolicy | None = None
    runs: int = field(default=0, init=False)

    @cached_property
    def files(self) -> tuple[str, ...]:
        """The project's files, relative to the root; raises TooLarge."""
        listed = _git_files(self.root)
        files = listed if listed is not None else _walk(self.root)
        if len(files) > MAX_FILES:
            raise TooLarge(
                f"the project has {len(files):,} files, too many to copy for each run of the "
                "command; run a Python script or module instead (python -m …), which is checked "
                "in memory"
            )
        return files

    def __call__(self, patches: Mapping[str, bytes], timeout: float | None = None) -> Ran:
        """The command on a fresh copy with patches (root-relative path -> bytes) written."""
        self.runs += 1
        workdir = Path(tempfile.mkdtemp(prefix="copy-", dir=self.scratch))
        tree = workdir / "project"
        try:
            _copy(self.root, tree, self.files)
            for rel, data in patches.items():
                (tree / rel).parent.mkdir(parents=True, exist_ok=True)
                (tree / rel).write_bytes(data)
            argv = [_moved(arg, self.root, tree) for arg in self.argv]
            env = dict(self.env)
            if env.get("PYTHONPATH"):
                parts = env["PYTHONPATH"].split(os.pathsep)
                env["PYTHONPATH"] = os.pathsep.join(_moved(p, self.root, tree) for p in parts)
            if self.policy is not None:
                env[POLICY_ENV] = json.dumps(self.policy)
                argv = [sys.executable, "-m", CONFINED, str(workdir), str(tree), *argv]
            limit = self.timeout if timeout is None else min(timeout, self.timeout)
            try:
                ran = launch(argv, tree, env, limit)
            except OSError:
                return Ran(NOT_FOUND, f"caretaker: command not found: {argv[0]}", 0.0)
            output = ran.output.replace(str(tree), str(self.root))
            return Ran(ran.status, output, ran.seconds, ran.timed_out)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)


def _moved(value: str, root: Path, tree: Path) -> str:
    """value pointed at the copy when it is a path inside the project."""
    if not os.path.isabs(value):
        return value
    try:
        return str(tree / Path(value).relative_to(root))
    except ValueError:
        return value


def _git_files(root: Path) -> tuple[str, ...] | None:
    if not (root / ".git").exists():
        return None
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    names = (name.decode("utf-8", "surrogateescape") for name in listed.split(b"\0") if name)
    return tuple(name for name in dict.fromkeys(names) if (root / name).is_file())


def _walk(root: Path) -> tuple[str, ...]:
    found: list[str] = []
    for folder, folders, names in os.walk(root):
        here = Path(folder)
        folders[:] = [
            name
            for name in folders
            if name not in SKIPPED and not (here / name / "pyvenv.cfg").exists()
        ]
        found += [(here / name).relative_to(root).as_posix() for name in names]
        if len(found) > MAX_FILES:
            break
    return tuple(found)


def _copy(root: Path, tree: Path, files: Sequence[str]) -> None:
    """Copies, never links: a run that writes to a file must not write to the user's."""
    made: set[Path] = set()
    for rel in files:
        target = tree / rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        try:
            shutil.copy2(root / rel, target, follow_symlinks=False)
        except OSError:
            continue  # gone since it was listed, or unreadable: the command sees it missing
