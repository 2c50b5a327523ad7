"""Git, through GitPython, the only module that imports it (lazily: it costs a subprocess or two).

The user's index and history are theirs: a fix is committed with ``git commit --only -- <paths>``,
which builds the commit from HEAD plus those paths' work-tree content in a temporary index, then
updates only those paths' entries in the real index; whatever the user staged stays staged and
uncommitted, whatever they did not stage stays unstaged. Nothing here stashes, resets or checks
out a file. No hook runs for caretaker's commits (``core.hooksPath`` points nowhere): a formatter in
a pre-commit hook would change a fix after it was verified, and a prepare-commit-msg hook its
message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import git

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

    def _run(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        import git

        try:
            output: str = self.repo.git.execute(
                # Paths are names, never patterns: committing calc[1].py must not take calc1.py.
                ["git", "--literal-pathspecs", *args],
                env=dict(env) if env else None,
                strip_newline_in_stdout=False,
            )
        except git.GitCommandError as error:
            raise GitError(_first_line(error)) from None
        return output

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
                reasons[path] = "had uncommitted changes before the run"
        return reasons

    def branch(self) -> str | None:
        """The checked-out branch, or None when HEAD is detached."""
        try:
            return self._run("symbolic-ref", "--quiet", "--short", "HEAD").strip() or None
        except GitError:
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

    def commit(self, paths: Sequence[Path], message: str) -> str:
        """Commit the work-tree content of paths, and nothing else; returns the commit's id."""
        names = [self.relative(path) for path in paths]
        self._run(
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "--only",
            "--no-verify",
            "--quiet",
            "--cleanup=whitespace",
            "--message",
            message,
            "--",
            *names,
            env=self._identity(),
        )
        return self._run("rev-parse", "HEAD").strip()
