"""The files caretaker leaves for the user, all under ``.caretaker/`` at the root: the patch of
verified fixes and one Markdown transcript per failure. The folder gets a ``.gitignore`` of its own
so it never shows up in ``git status``; each session replaces what the previous one left.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

from pytest_caretaker.record.redact import Redact, Redactor

OUTPUT_DIR = ".caretaker"
PATCH_NAME = "heal.patch"
FOLDER = "transcripts"
#: Keys the hash of a test id that held a secret: its file name must not let anyone check a
#: guessed password against it (a plain hash of the id would), so it is unique per process only.
_SALT = secrets.token_bytes(16)


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


def file_name(nodeid: str, redact: Redact | None = None) -> str:
    """A file name for a test id: readable, unique enough, safe on every file system, and made
    from the redacted id (a password given as a parametrize value is in the id). Without a
    redactor, one that knows no values redacts the secrets it recognises by shape and name."""
    shown = (redact or Redactor())(nodeid)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", shown).strip("_.")[:80]
    if shown == nodeid:
        digest = hashlib.sha256(nodeid.encode()).hexdigest()
    else:
        digest = hmac.new(_SALT, nodeid.encode(), hashlib.sha256).hexdigest()
    return f"{slug}-{digest[:8]}.md"


def write_all(
    folder: Path, rendered: Mapping[str, str], redact: Redact | None = None
) -> Path | None:
    """Replace the transcripts in folder by rendered (test id -> Markdown); with redact, both
    the file names and the text are redacted (the engine passes text it redacted already)."""
    target = folder / FOLDER
    if target.is_dir():
        for old in target.glob("*.md"):
            old.unlink(missing_ok=True)
    if not rendered:
        return None
    target.mkdir(parents=True, exist_ok=True)
    for nodeid, text in rendered.items():
        shown = redact(text) if redact is not None else text
        (target / file_name(nodeid, redact)).write_text(shown, encoding="utf-8")
    return target


def save(
    root: Path, patch: bytes, rendered: Mapping[str, str], redact: Redact
) -> tuple[Path | None, str | None]:
    """The patch and the transcripts under .caretaker/: the patch's path (None: no fix), and a
    note when the folder cannot be written (a full disk, a read-only checkout), which costs these
    files, said in one line, not the healing."""
    written = None
    try:
        written = write_patch(root, patch)
        write_all(output_dir(root), rendered, redact)
    except OSError as error:
        lost = "the transcripts" if written else "the patch and the transcripts"
        return written, (
            f"caretaker: could not write to {OUTPUT_DIR}/ ({error}); "
            f"{lost} are missing, the fixes are in this summary"
        )
    return written, None
