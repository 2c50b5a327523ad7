"""The files caretaker leaves for the user, all under ``.caretaker/`` at the root: the patch of
verified fixes (each session replaces it) and one Markdown transcript per failure, kept per
session in ``transcripts/<session>/`` for the last ``--heal-transcripts`` sessions, so that
``caretaker report`` links each row to its own. The folder gets a ``.gitignore`` of its own so it
never shows up in ``git status``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

from pytest_caretaker.record.redact import Redact, Redactor

OUTPUT_DIR = ".caretaker"
PATCH_NAME = "heal.patch"
FOLDER = "transcripts"
#: Sessions whose transcripts are kept unless a front end says otherwise (settings.transcripts).
KEEP = 20
#: A session's id, as new_session makes it: its folder's name among the transcripts.
SESSION = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}")
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


def new_session() -> str:
    """A new session's id: when it began (UTC), to the second, and six random hex digits; ids
    sort as the sessions began, so the oldest transcripts are the first removed."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + secrets.token_hex(3)


def transcript_path(nodeid: str, session: str = "", redact: Redact | None = None) -> str:
    """Where a test's transcript is written, relative to the root (a session's folder)."""
    folder = f"{OUTPUT_DIR}/{FOLDER}/{session}/" if session else f"{OUTPUT_DIR}/{FOLDER}/"
    return folder + file_name(nodeid, redact)


def write_all(
    folder: Path,
    rendered: Mapping[str, str],
    redact: Redact | None = None,
    session: str = "",
    keep: int = KEEP,
) -> Path | None:
    """Write a session's transcripts (test id -> Markdown) in folder's transcripts/<session>/,
    and remove those of all but the latest keep sessions; with redact, both the file names and
    the text are redacted (the engine passes text it redacted already). Without a session, they
    replace the ones at transcripts/ itself (a front end that names no session)."""
    root = folder / FOLDER
    target = root / session if session else root
    if root.is_dir():
        for old in root.glob("*.md"):  # those of a session that was named no session
            old.unlink(missing_ok=True)
    if rendered and (keep > 0 or not session):
        target.mkdir(parents=True, exist_ok=True)
        for nodeid, text in rendered.items():
            shown = redact(text) if redact is not None else text
            (target / file_name(nodeid, redact)).write_text(shown, encoding="utf-8")
    _prune(root, keep)
    return target if rendered and target.is_dir() else None


def _prune(root: Path, keep: int) -> None:
    """Remove the transcripts of all but the latest keep sessions."""
    if not root.is_dir():
        return
    sessions = sorted(p for p in root.iterdir() if p.is_dir() and SESSION.fullmatch(p.name))
    for old in sessions[: max(0, len(sessions) - keep)]:
        shutil.rmtree(old, ignore_errors=True)


def save(
    root: Path,
    patch: bytes,
    rendered: Mapping[str, str],
    redact: Redact,
    session: str = "",
    keep: int = KEEP,
) -> tuple[Path | None, str | None]:
    """The patch and the transcripts under .caretaker/: the patch's path (None: no fix), and a
    note when the folder cannot be written (a full disk, a read-only checkout), which costs these
    files, said in one line, not the healing."""
    written = None
    try:
        written = write_patch(root, patch)
        write_all(output_dir(root), rendered, redact, session, keep)
    except OSError as error:
        lost = "the transcripts" if written else "the patch and the transcripts"
        return written, (
            f"caretaker: could not write to {OUTPUT_DIR}/ ({error}); "
            f"{lost} are missing, the fixes are in this summary"
        )
    return written, None
