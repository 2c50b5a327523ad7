"""Git, through GitPython, the only module that imports it (lazily: it costs a subprocess or two).

The user's index and history are theirs: a fix is committed with ``git commit --only -- <paths>``,
which builds the commit from HEAD plus those paths' work-tree content in a temporary index, then
updates only those paths' entries in the real index; whatever the user staged stays staged and
uncommitted, whatever they did not stage stays unstaged. Nothing here stashes, resets or checks
out a file. No program that configuration names runs for any of caretaker's git commands
(hardening.py): no hook (a formatter in a pre-commit hook would change a fix after it was
verified, and a prepare-commit-msg hook its message), no fsmonitor, signing program, filter or
driver. Each command runs in a session of its own, and Ctrl-C waits for it (interrupts.py): git
is never stopped halfway, and never left running, with its index.lock, once caretaker is gone.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_caretaker.write import hardening
from pytest_caretaker.write.interrupts import held

if TYPE_CHECKING:
    import git

#: Files in the git directory that say an operation is unfinished, and what it is.
OPERATIONS = (
    ("MERGE_HEAD", "a merge is in progress"),
    ("rebase-merge", "a rebase is in progress"),
    ("rebase-apply", "a rebase or git am is in progress"),
    ("CHERRY_PICK_HEAD", "a cherry-pick is in progress"),
    ("REVERT_HEAD", "a revert is in progress"),
    ("sequencer", "a cherry-pick or revert is in progress"),
    ("BISECT_LOG", "a bisect is in progress"),
)

DETACHED = "HEAD is detached"
#: Why a file the user had changed may not be committed (their work is never committed for them).
UNCOMMITTED = "had uncommitted changes before the run"

#: The committer when git has no identity configured (a fresh CI runner, say).
IDENTITY = {
    "GIT_AUTHOR_NAME": "pytest-caretaker",
    "GIT_AUTHOR_EMAIL": "pytest-caretaker@localhost",
    "GIT_COMMITTER_NAME": "pytest-caretaker",
    "GIT_COMMITTER_EMAIL": "pytest-caretaker@localhost",
}


class GitError(Exception):
    """A git operation that could not be done; the message is one line for the summary."""


def _first_line(error: Exception) -> str:
    stderr = getattr(error, "stderr", "") or str(error)
    for line in str(stderr).splitlines():
        line = line.strip().removeprefix("stderr:").strip().strip("'").strip()
        if line:
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return type(error).__name__


class Repository:
    """The git work tree that holds the project, seen through the few operations caretaker needs."""

    def __init__(self, repo: git.Repo, top: Path) -> None:
        self.repo = repo
        self.top = top
        self.git_dir = Path(repo.git_dir).resolve()  # this work tree's own (index, HEAD, locks)
        self._env: dict[str, str] | None = None

    @classmethod
    def find(cls, root: Path) -> Repository | None:
        """The work tree holding root, or None outside git (or when git is not installed)."""
        try:
            import git
        except ImportError:  # GitPython raises this when it finds no git executable
            return None
        try:
            repo = git.Repo(root, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            return None
        if repo.bare or repo.working_tree_dir is None:
            return None
        return cls(repo, Path(repo.working_tree_dir).resolve())

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.top).as_posix()

    def _hardened(self) -> dict[str, str]:
        """The environment every command runs with (hardening.py), found once: the fixed
        overrides, and the disabling of each filter and driver the configuration names."""
        if self._env is None:
            fixed = hardening.environment(hardening.overrides())
            listing = self._execute(hardening.DRIVER_QUERY, fixed)
            self._env = hardening.environment(hardening.overrides(listing))
        return self._env

    def _execute(self, args: Sequence[str], env: Mapping[str, str]) -> str:
        import git

        try:
            with held():
                # Paths are names, never patterns: committing calc[1].py must not take calc1.py.
                output: str = self.repo.git.execute(
                    ["git", "--no-pager", "--literal-pathspecs", *args],
                    env=dict(env),
                    strip_newline_in_stdout=False,
                    # Out of the terminal's process group: its Ctrl-C is pytest's alone.
                    start_new_session=os.name == "posix",
                )
        except git.GitCommandError as error:
            raise GitError(_first_line(error)) from None
        return output

    def _run(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        return self._execute(args, {**self._hardened(), **(env or {})})

    def unclean(self, paths: Sequence[Path]) -> dict[Path, str]:
        """Why each of paths may not be committed as it is: uncommitted changes, untracked or
        ignored. Clean paths are absent."""
        if not paths:
            return {}
        by_name = {self.relative(path): path for path in paths}
        output = self._run(
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignored=traditional",  # with all: each ignored file, even in an ignored folder
            "--",
            *by_name,
        )
        reasons: dict[Path, str] = {}
        entries = iter(output.split("\0"))
        for entry in entries:
            if len(entry) < 4:
                continue
            code, name = entry[:2], entry[3:]
            if "R" in code or "C" in code:
                next(entries, None)  # a rename's second field is its old name
            path = by_name.get(name)
            if path is None:
                continue
            if code == "??":
                reasons[path] = "is not tracked by git"
            elif code == "!!":
                reasons[path] = "is ignored by git"
            else:
                reasons[path] = UNCOMMITTED
        return reasons

    def branch(self) -> str | None:
        """The checked-out branch, or None when HEAD is detached."""
        try:
            return self._run("symbolic-ref", "--quiet", "--short", "HEAD").strip() or None
        except GitError:
            return None

    def operation(self) -> str | None:
        """Why a commit now would land somewhere the user did not mean: an unfinished merge,
        rebase, cherry-pick, revert or bisect, or a detached HEAD; None when there is none."""
        for name, what in OPERATIONS:
            if (self.git_dir / name).exists():
                return what
        if self.branch() is None:
            return DETACHED
        return None

    def switch(self, name: str) -> None:
        """Check out branch name, created from HEAD if missing, keeping uncommitted changes.

        git refuses (and changes nothing) when an uncommitted change would be overwritten.
        """
        if self.branch() == name:
            return
        exists = bool(self._run("branch", "--list", name).strip())
        try:
            self._run("switch", name) if exists else self._run("switch", "-c", name)
        except GitError as error:
            raise GitError(f"cannot switch to branch {name}: {error}") from None

    def _identity(self) -> dict[str, str]:
        try:
            self._run("var", "GIT_AUTHOR_IDENT")
            self._run("var", "GIT_COMMITTER_IDENT")
        except GitError:
            return dict(IDENTITY)
        return {}

    def commit(self, paths: Sequence[Path], message: str, new: Sequence[Path] = ()) -> str:
        """Commit the work-tree content of paths, and nothing else; returns the commit's id.
        new are those of paths that caretaker made, which git does not know yet."""
        names = [self.relative(path) for path in paths]
        with held():  # not a file added to the user's index and left uncommitted
            if new:
                self._run("add", "--", *(self.relative(path) for path in new))
            self._run(
                "commit",
                "--only",
                "--no-verify",
                "--no-gpg-sign",
                "--quiet",
                "--cleanup=whitespace",
                "--message",
                message,
                "--",
                *names,
                env=self._identity(),
            )
            return self._run("rev-parse", "HEAD").strip()
