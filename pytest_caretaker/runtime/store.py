"""Where proven fixes are kept between processes (the ``store=`` of ``@heal``): by key, the
function's id and the hash of its source, so a changed source finds nothing and is repaired
anew. The value is Python text a person can read: each edit of the fix under a comment that
names it, e.g. ``# caretaker: replace app/invoice.py::total``. The default store is a folder of
such files, .caretaker/fixes/; any object with ``get(key) -> str | None`` and
``save(key, code)`` (a database) will do."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

from pytest_caretaker.results import Edit

FOLDER = "fixes"
_HEADER = re.compile(r"^# caretaker: (replace|helper|import) (\S+?)::(.+)$", re.M)


def key(id: str, source: str) -> str:
    """The key of the fix of function id while its source reads as source."""
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{id}@{digest}"


def code_of(edits: Sequence[Edit], explanation: str) -> str:
    """A fix as the text a store keeps."""
    said = "\n".join(f"# {line}".rstrip() for line in explanation.splitlines()[:20])
    parts = [said] if said else []
    for edit in edits:
        parts.append(f"# caretaker: {edit.kind} {edit.path}::{edit.qualname}\n{edit.source}")
    return "\n".join(part.rstrip("\n") + "\n" for part in parts)


def edits_of(code: str) -> tuple[Edit, ...]:
    """The edits of a stored fix; () when the text holds none."""
    found = list(_HEADER.finditer(code))
    edits = []
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(code)
        kind, path, qualname = match.groups()
        source = code[match.end() : end].strip("\n") + "\n"
        edits.append(Edit(kind, path, qualname, source))  # type: ignore[arg-type]
    return tuple(edits)


class FileStore:
    """One file per key under folder (.caretaker/fixes/ of the project)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        name = re.sub(r"[^A-Za-z0-9_.@-]+", "-", key).strip("-.")[:120] or "fix"
        return self.folder / f"{name}.py"

    def get(self, key: str) -> str | None:
        try:
            return self._path(key).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def save(self, key: str, code: str) -> None:
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        draft = target.with_name(f".{target.name}.{os.getpid()}.partial")
        draft.write_text(code, encoding="utf-8")
        draft.replace(target)
