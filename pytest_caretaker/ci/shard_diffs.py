"""A shard's fix as last-run.json holds it (a unified diff, by file and hunk), applied to this
checkout's files in memory: ``caretaker merge`` rebuilds each fix from it. The shards ran the
same commit, so each hunk's context must be where the diff says; when it is not (a shard that ran
another commit), the fix does not apply, and says where."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_files(
    root: Path, files: Sequence[Mapping[str, Any]], before: dict[str, bytes]
) -> dict[str, bytes]:
    """Each file of a diff (last-run.json's ``files``) after its hunks, from the checkout's."""
    out: dict[str, bytes] = {}
    for each in files:
        path = str(each["path"])
        target = (root / path).resolve()
        if not target.is_relative_to(root.resolve()) or not target.is_file():
            raise ValueError(f"{path} is not a file of this checkout")
        if path not in before:
            before[path] = target.read_bytes()
        text = before[path].decode("utf-8", "surrogateescape")
        out[path] = patched(text, [str(h) for h in each["hunks"]], path).encode(
            "utf-8", "surrogateescape"
        )
    return out


def patched(text: str, hunks: Sequence[str], path: str) -> str:
    """text with a unified diff's hunks applied; ValueError when its context is not there."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    at = 0  # lines of text taken
    for hunk in hunks:
        head, *body = hunk.split("\n")
        found = _HUNK.match(head)
        if found is None:
            raise ValueError(f"{path}: a hunk without its @@ line")
        start = int(found[1]) - (1 if found[2] != "0" else 0)
        old: list[str] = []
        new: list[str] = []
        previous = " "
        for line in body:
            if line.startswith("\\"):  # "\ No newline at end of file": the line before has none
                for side in (old, new) if previous == " " else (old if previous == "-" else new,):
                    side[-1] = side[-1].removesuffix("\n")
                continue
            if not line:
                continue
            previous = line[0]
            if previous in " -":
                old.append(line[1:] + "\n")
            if previous in " +":
                new.append(line[1:] + "\n")
        if start < at or lines[start : start + len(old)] != old:
            raise ValueError(f"{path} differs from the shard's at line {start + 1}")
        out += lines[at:start] + new
        at = start + len(old)
    return "".join(out + lines[at:])
