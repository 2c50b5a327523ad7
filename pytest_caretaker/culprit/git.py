"""Reading git: the few commands the culprit search needs, run as processes with an environment
that never takes a lock on the user's index (``GIT_OPTIONAL_LOCKS=0``), never asks for anything
and reads in one language. Every failure is None: the search then turns itself off.

Every ``--heal`` session reads ``state()`` even when nothing failed, so what only the search
needs (the diff parser, the result types) is imported where it is used.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_caretaker.changes.diff import Hunk
    from pytest_caretaker.commits import Commit

TIMEOUT = 60.0
_FIELDS = "%H%x1f%s%x1f%an%x1f%aI"
_MARK = "\x1ecommit\x1f"


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C", GIT_PAGER="cat")
    return env


@dataclass(frozen=True)
class Git:
    root: Path  # the project's root: paths are read relative to it

    def run(self, *args: str, timeout: float = TIMEOUT) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-c", "core.quotepath=off", *args],
                cwd=self.root,
                env=environment(),
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0:
            return None
        return done.stdout.decode("utf-8", "surrogateescape")

    def state(self) -> tuple[str, bool] | None:
        """(HEAD's id, whether tracked files differ from it), in one process; None outside a
        repository or before its first commit."""
        out = self.run("status", "--porcelain=v2", "--branch", "--untracked-files=no")
        if out is None:
            return None
        head = ""
        dirty = False
        for line in out.splitlines():
            if line.startswith("# branch.oid "):
                head = line.split()[-1]
            elif line and not line.startswith("#"):
                dirty = True
        return (head, dirty) if len(head) == 40 else None

    def shallow(self) -> bool:
        return (self.run("rev-parse", "--is-shallow-repository") or "").strip() == "true"

    def prefix(self) -> str:
        """The root's path inside the repository ("" at its top, else "sub/dir/")."""
        return (self.run("rev-parse", "--show-prefix") or "").strip()

    def first_parents(self, depth: int) -> list[str]:
        """HEAD and its first-parent ancestors, newest first, depth + 1 at most."""
        out = self.run("rev-list", "--first-parent", f"--max-count={depth + 1}", "HEAD")
        return out.split() if out else []

    def commits(self, shas: Sequence[str]) -> dict[str, Commit]:
        from pytest_caretaker.commits import Commit

        if not shas:
            return {}
        out = self.run("show", "-s", "--no-notes", f"--format={_FIELDS}", *shas) or ""
        found: dict[str, Commit] = {}
        for line in out.splitlines():
            parts = line.split("\x1f")
            if len(parts) == 4:
                found[parts[0]] = Commit(*parts)
        return found

    def diff(self, *against: str) -> list[Hunk] | None:
        """The working tree against a commit (or a commit against another), under the root."""
        from pytest_caretaker.changes.diff import parse

        out = self.run("diff", "-M", "-U0", "--no-color", "--no-ext-diff", "--relative", *against)
        return parse(out) if out is not None else None

    def patches(self, since: str) -> list[tuple[Commit, list[Hunk]]] | None:
        """Each first-parent commit after since up to HEAD, oldest first, with its hunks."""
        from pytest_caretaker.changes.diff import parse
        from pytest_caretaker.commits import Commit

        out = self.run(
            "log", "--first-parent", "--reverse", "--diff-merges=first-parent", "-M", "-U0",
            "-p", "--no-color", "--no-ext-diff", "--relative",
            f"--format={_MARK}{_FIELDS}", f"{since}..HEAD",
        )  # fmt: skip
        if out is None:
            return None
        found: list[tuple[Commit, list[Hunk]]] = []
        for part in out.split(_MARK)[1:]:
            head, _, body = part.partition("\n")
            fields = head.split("\x1f")
            if len(fields) == 4:
                found.append((Commit(*fields), parse(body)))
        return found
