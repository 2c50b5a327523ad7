"""Hunks: a unified diff with no context lines (``git diff -U0``) read into values.

A hunk keeps its removed lines (as they were at the old commit) and its added lines (as they are
now), with where each side starts: enough to put the old lines back (a partial revert) and to see
which functions a change touched. Lines keep a ``\\r`` of a CRLF file: a revert writes them back
byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from pytest_caretaker.commits import Commit

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Hunk:
    path: str  # in the working tree, relative to the project's root
    old_path: str  # at the old commit (another name when the file was renamed)
    old_start: int  # first removed line at the old commit (where they went, if none)
    old: tuple[str, ...]  # the lines removed
    #: First added line in the working tree; with none added, the line the removed ones stood
    #: before.
    new_start: int
    new: tuple[str, ...]  # the lines added
    commit: Commit | None = None  # the commit that made it; None: not committed

    @property
    def new_end(self) -> int:
        """The last line the hunk covers now (for a pure removal, the line it stood before)."""
        return self.new_start + max(len(self.new), 1) - 1

    def touches(self, start: int, end: int) -> bool:
        """Whether the hunk lies on lines start..end of its file as it is now."""
        return self.new_start <= end and self.new_end >= start

    def attributed(self, commit: Commit | None) -> Hunk:
        return replace(self, commit=commit)

    def text(self) -> str:
        """The hunk as a diff shows it (without its @@ line)."""
        return "".join(f"-{line}\n" for line in self.old) + "".join(
            f"+{line}\n" for line in self.new
        )


def parse(output: str) -> list[Hunk]:
    """Every hunk of a ``git diff -U0`` (or of one commit of ``git log -p -U0``) output."""
    return list(_hunks(output.split("\n")))


def _hunks(lines: list[str]) -> Iterator[Hunk]:
    old_path = new_path = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.startswith("diff --git "):
            old_path = new_path = ""
        elif line.startswith("--- "):
            old_path = _path(line[4:])
        elif line.startswith("+++ "):
            new_path = _path(line[4:])
        elif (found := _HUNK.match(line)) is not None and new_path:
            removed, added = int(found[2] or "1"), int(found[4] or "1")
            taken = _length(lines[index:], removed + added)
            body = lines[index : index + taken]
            index += taken
            old = [b[1:] for b in body if b.startswith("-")]
            new = [b[1:] for b in body if b.startswith("+")]
            old_start, new_start = int(found[1]), int(found[3])
            if not added:  # the removed lines stood after line new_start
                new_start += 1
            if not removed:
                old_start += 1
            yield Hunk(new_path, old_path or new_path, old_start, tuple(old), new_start, tuple(new))


def _length(body: list[str], count: int) -> int:
    """How many lines of body the hunk's count of changed lines takes (with ``\\`` markers)."""
    taken = seen = 0
    while seen < count and taken < len(body):
        if body[taken].startswith(("-", "+")):
            seen += 1
        taken += 1
    while taken < len(body) and body[taken].startswith("\\"):  # \ No newline at end of file
        taken += 1
    return taken


def _path(text: str) -> str:
    """a/x.py -> x.py; /dev/null (a file added or deleted) -> ""."""
    text = text.rstrip("\t")
    if text == "/dev/null":
        return ""
    if text.startswith('"'):  # git quotes a path with unusual characters
        text = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        text = text.encode("latin-1").decode("utf-8", "surrogateescape")
    return text[2:] if text[:2] in ("a/", "b/") else text
