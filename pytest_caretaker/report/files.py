"""The files caretaker leaves for the user, all under ``.caretaker/`` at the root: the patch of
verified fixes and one Markdown transcript per failure. The folder gets a ``.gitignore`` of its own
so it never shows up in ``git status``; each session replaces what the previous one left.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

OUTPUT_DIR = ".caretaker"
PATCH_NAME = "heal.patch"
FOLDER = "transcripts"


def output_dir(root: Path) -> Path:
    """caretaker's folder at the root, created with a .gitignore that keeps it out of git."""
    folder = root / OUTPUT_DIR
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Written by pytest-caretaker; nothing here is meant for git.\n*\n")
    return folder


def write_patch(root: Path, patch: bytes) -> Path | None:
    """Write the patch file (or remove a stale one); returns its path when written."""
    target = root / OUTPUT_DIR / PATCH_NAME
    if not patch:
        target.unlink(missing_ok=True)
        return None
    output_dir(root)
    target.write_bytes(patch)
    return target


def file_name(nodeid: str) -> str:
    """A file name for a test id: readable, unique enough, and safe on every file system."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_.")[:80]
    return f"{slug}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}.md"


def write_all(folder: Path, rendered: Mapping[str, str]) -> Path | None:
    """Replace the transcripts in folder by rendered (test id -> Markdown)."""
    target = folder / FOLDER
    if target.is_dir():
        for old in target.glob("*.md"):
            old.unlink(missing_ok=True)
    if not rendered:
        return None
    target.mkdir(parents=True, exist_ok=True)
    for nodeid, text in rendered.items():
        (target / file_name(nodeid)).write_text(text, encoding="utf-8")
    return target
