"""Crash records under ``.caretaker/crashes/``: one JSON file per id and failure signature, with
a count, and beside it the pickled call when it pickles (else the record says why it cannot be
replayed). Never more than MAX_RECORDS records, nor a call of more than MAX_CALL bytes.

Written while the program runs, after an exception: the standard library and the recording
stage (record/failure.py: project frames, redacted and size-capped locals), nothing heavy.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import re
import sys
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pytest_caretaker.record.failure import from_data, record, safe_repr, to_data
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import Failure

FOLDER = "crashes"
VERSION = 1
MAX_RECORDS = 100
MAX_CALL = 1 << 20  # bytes of a pickled call
#: The attribute a recorded exception carries: the hooks and the decorated callers it passes
#: through on its way up record it no more.
MARK = "__caretaker_record__"


@dataclass(frozen=True)
class Where:
    """The function a crash is about: how to name it, find it and call it again."""

    id: str
    description: str
    module: str
    qualname: str
    file: str  # absolute, as the code object has it
    line: int  # its code's first line (where its decorators begin)
    coroutine: bool = False


@dataclass(frozen=True)
class Crash:
    """One record as read back: its file, its data, the failure, the pickled call if any."""

    path: Path
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def where(self) -> Where:
        return Where(**self.data["function"])

    @property
    def failure(self) -> Failure:
        return from_data(self.data["failure"])

    @property
    def call(self) -> Path | None:
        name = self.data["call"]["pickle"]
        return self.path.with_name(name) if name else None

    @property
    def replayable(self) -> bool:
        call = self.call
        return call is not None and call.is_file()

    @property
    def why(self) -> str:
        """Why the call cannot be replayed ("" when it can)."""
        return str(self.data["call"]["why"])


def folder(root: Path) -> Path:
    return root / ".caretaker" / FOLDER


def write(
    root: Path,
    where: Where,
    error: BaseException,
    call: tuple[tuple[Any, ...], dict[str, Any]] | None,
    before: bytes | Exception | None = None,
    source: str = "decorator",
) -> Crash:
    """Record the crash (count one more of an existing one); call is None for an exception hook,
    which has no call to replay. Raises OSError when the folder cannot be written."""
    redactor = Redactor(os.environ)
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    failure = record(where.id, "call", Path(where.file), error, text, "", root, redactor)
    signature = _signature(where.id, failure)
    target = folder(root) / f"{_slug(where.id)}-{signature[:12]}.json"
    pickled, why = _pickled(where, call, before)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    previous = _read(target)
    count = int(previous.get("count", 0)) + 1 if previous else 1
    data = {
        "version": VERSION,
        "id": where.id,
        "signature": signature,
        "source": source,
        "exception": {"type": failure.exc_type, "message": failure.message},
        "function": asdict(where),
        "call": {
            "pickle": target.with_suffix(".pkl").name if pickled is not None else "",
            "why": why,
            "shown": _shown(call, redactor),
        },
        "interpreter": sys.executable,
        "sys_path": [entry for entry in sys.path if isinstance(entry, str)],
        "cwd": os.getcwd(),
        "count": count,
        "first_seen": previous.get("first_seen", now) if previous else now,
        "last_seen": now,
        "failure": to_data(failure),
    }
    _ignored(root)
    target.parent.mkdir(parents=True, exist_ok=True)
    if pickled is not None:
        _atomic(target.with_suffix(".pkl"), pickled)
    else:
        target.with_suffix(".pkl").unlink(missing_ok=True)
    _atomic(target, json.dumps(data, indent=1).encode("utf-8"))
    _prune(target.parent)
    with contextlib.suppress(Exception):  # an exception class may refuse new attributes
        setattr(error, MARK, str(target))
    return Crash(target, data)


def recorded(error: BaseException) -> bool:
    """Whether error was recorded already (by the decorated function it passed through first)."""
    return bool(getattr(error, MARK, None))


def _pickled(
    where: Where,
    call: tuple[tuple[Any, ...], dict[str, Any]] | None,
    before: bytes | Exception | None,
) -> tuple[bytes | None, str]:
    """The call's pickle, or None and why it cannot be replayed."""
    if call is None:
        return None, "recorded by the exception hook: there is no call to replay"
    if "<locals>" in where.qualname:
        return None, "the function is defined inside another function, so it cannot be called again"
    data: bytes | Exception | None = before
    if data is None:
        try:
            data = pickle.dumps(call, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # anything a user's __reduce__ raises
            data = error
    if isinstance(data, Exception):
        said = str(data).splitlines()[0][:200] if str(data) else ""
        return None, f"its arguments do not pickle ({type(data).__name__}: {said})"
    if len(data) > MAX_CALL:
        return None, f"its arguments pickle to {len(data):,} bytes, more than {MAX_CALL:,}"
    return data, ""


def _shown(call: tuple[tuple[Any, ...], dict[str, Any]] | None, redactor: Redactor) -> str:
    """The call's arguments as redacted, size-capped reprs: what the record shows."""
    if call is None:
        return ""
    args, kwargs = call
    shown = [safe_repr(f"arg{index}", value, redactor) for index, value in enumerate(args)]
    shown += [f"{name}={safe_repr(name, value, redactor)}" for name, value in kwargs.items()]
    return f"({', '.join(shown[:20])}{', ...' if len(shown) > 20 else ''})"


def _signature(id: str, failure: Failure) -> str:
    """Same id, exception type and innermost project function: the same failure (lines move)."""
    inner = failure.innermost
    place = f"{inner.path}\0{inner.name}" if inner is not None else ""
    return hashlib.sha256(f"{id}\0{failure.exc_type}\0{place}".encode()).hexdigest()[:16]


def _slug(id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", id).strip("-.")[:80] or "crash"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _atomic(path: Path, data: bytes) -> None:
    draft = path.with_name(f".{path.name}.{os.getpid()}.partial")
    draft.write_bytes(data)
    draft.replace(path)


def _ignored(root: Path) -> None:
    """.caretaker/ keeps itself out of git, as report/files.py makes it."""
    base = root / ".caretaker"
    base.mkdir(exist_ok=True)
    ignore = base / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Written by pytest-caretaker; nothing here is meant for git.\n*\n")


def _prune(where: Path) -> None:
    """Drop the records seen longest ago beyond MAX_RECORDS (with their calls)."""
    records = sorted(where.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in records[: max(0, len(records) - MAX_RECORDS)]:
        old.unlink(missing_ok=True)
        old.with_suffix(".pkl").unlink(missing_ok=True)


def load(path: Path) -> Crash | None:
    data = _read(path)
    if data.get("version") != VERSION or "function" not in data:
        return None
    return Crash(path, data)


def all_crashes(root: Path) -> list[Crash]:
    """Every readable record, the one seen last first."""
    found = [c for p in sorted(folder(root).glob("*.json")) if (c := load(p)) is not None]
    return sorted(found, key=lambda crash: str(crash.data.get("last_seen", "")), reverse=True)
