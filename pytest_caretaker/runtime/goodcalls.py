"""The good calls on disk, beside the crash records: ``.caretaker/crashes/good/<id>.json`` per
decorated function, the sample of its calls that returned (sample.py), for ``crashes heal`` and
heal mode to replay with a fix (check.py)::

    {"version": 1, "id": "mean-gap", "function": "app.stats:mean_gap", "code": "<digest>",
     "calls": [{"priority": 0.031, "call": "mean_gap([1, 4, 9])", "result": "4.0",
                "args": "<base64 of pickle((args, kwargs))>", "returned": "<base64 pickle>"}]}

``call`` and ``result`` are what a person and a prompt see: reprs redacted as a crash record's
locals are, and cut. The pickles cannot be redacted, so a call whose arguments or result show a
secret (the redactor hides part of a repr, or a parameter's name looks like a secret's) is not
kept at all. The same call (arguments and result) sampled twice is written once, at the lower
priority: a repeated call proves no more than the first. ``code`` is a digest of the function's
code object: a process whose function reads otherwise (its source changed, a fix was swapped
in) starts the sample anew instead of merging into one its results no longer match. Writing
merges with what is on disk (the lowest priorities of both); two processes writing at once may
lose one's latest calls, never the file.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.record.redact import Redact, Redactor, secret_name
from pytest_caretaker.runtime.records import _atomic, _ignored, _read, _slug
from pytest_caretaker.runtime.records import folder as crashes
from pytest_caretaker.runtime.sample import SIZE, Kept, Sample

FOLDER = "good"
VERSION = 1
MAX_SHOWN = 160  # characters of an argument's or a result's repr, as of a record's locals


@dataclass(frozen=True)
class GoodCall:
    """A recorded call that returned: as shown (redacted) and as pickled."""

    call: str  # ``mean_gap([1, 4, 9])``
    result: str  # ``4.0``
    args: bytes  # pickle((args, kwargs)), as the call came in
    returned: bytes  # pickle(result)


def path_of(root: Path, id: str) -> Path:
    return crashes(root) / FOLDER / f"{_slug(id)}.json"


def write_all(samples: Sequence[Sample]) -> None:
    """Write each sample to its project (at exit)."""
    for sample in samples:
        if sample.root is not None:
            write(sample, sample.root)


def write(sample: Sample, root: Path) -> None:
    """Merge the sample into the one on disk. A project folder that is gone (a temporary one)
    keeps nothing; raises OSError when the folder cannot be written."""
    kept = sample.taken()
    if not kept or not root.is_dir():
        return
    code = sample.function.__code__
    redactor = Redactor(os.environ)
    rel = project_relpath(code.co_filename, root)
    if rel is not None:  # the secrets the function's file holds in literals, as for a record
        redactor.learn_code(root, [rel])
    digest = fingerprint(code)
    target = path_of(root, sample.id)
    old = _read(target)
    same = old.get("version") == VERSION and old.get("code") == digest
    entries = {
        float(entry["priority"]): entry
        for entry in (old.get("calls", []) if same else [])
        if isinstance(entry, dict) and isinstance(entry.get("priority"), (int, float))
    }
    for call in kept:
        if call.call and call.priority not in entries:  # one written before is as it was
            entry = _entry(call, code, sample.function, redactor)
            if entry is not None:
                entries[call.priority] = entry
    twins: dict[tuple[object, object], float] = {}  # the same call twice: its lower priority
    for priority in sorted(entries):
        twins.setdefault((entries[priority]["args"], entries[priority]["returned"]), priority)
    chosen = sorted(twins.values())[:SIZE]
    module = getattr(sample.function, "__module__", None) or "__main__"
    data = {
        "version": VERSION,
        "id": sample.id,
        "function": f"{module}:{sample.function.__qualname__}",
        "code": digest,
        "calls": [entries[priority] for priority in chosen],
    }
    _ignored(root)
    target.parent.mkdir(parents=True, exist_ok=True)
    _atomic(target, json.dumps(data, indent=1).encode("utf-8"))


def _entry(kept: Kept, code: CodeType, function: Any, redactor: Redact) -> dict[str, object] | None:
    """The call as written; None when it does not read back or shows a secret."""
    try:
        args, kwargs = pickle.loads(kept.call)
        result = pickle.loads(kept.result)
    except Exception:  # a class that no longer unpickles here: nothing to replay
        return None
    names = code.co_varnames[: code.co_argcount]
    shown = [
        _clean(names[index] if index < len(names) else f"arg{index}", value, redactor)
        for index, value in enumerate(args)
    ]
    shown += [
        None if (text := _clean(name, value, redactor)) is None else f"{name}={text}"
        for name, value in kwargs.items()
    ]
    returned = _clean("result", result, redactor)
    if returned is None or any(text is None for text in shown):
        return None
    return {
        "priority": kept.priority,
        "call": f"{function.__name__}({', '.join(text for text in shown if text is not None)})",
        "result": returned,
        "args": base64.b64encode(kept.call).decode("ascii"),
        "returned": base64.b64encode(kept.result).decode("ascii"),
    }


def _clean(name: str, value: object, redactor: Redact) -> str | None:
    """value's repr, cut; None when it holds a secret, by its name or what the redactor finds."""
    if secret_name(name):
        return None
    try:
        text = repr(value)
    except Exception as error:  # a user's __repr__ may raise anything
        text = f"<repr failed: {type(error).__name__}>"
    if redactor(text) != text:
        return None
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def load(root: Path, id: str) -> list[GoodCall]:
    """The good calls recorded for id, by the call (so a refusal names the same one each time);
    [] when there are none."""
    data = _read(path_of(root, id))
    if data.get("version") != VERSION or data.get("id") != id:
        return []
    found = []
    for entry in data.get("calls", []):
        try:
            found.append(
                GoodCall(
                    str(entry["call"]),
                    str(entry["result"]),
                    base64.b64decode(entry["args"], validate=True),
                    base64.b64decode(entry["returned"], validate=True),
                )
            )
        except (KeyError, TypeError, ValueError, binascii.Error):
            continue  # an entry edited by hand, or cut: the others still count
    return sorted(found, key=lambda good: (good.call, good.result))


def fingerprint(code: CodeType) -> str:
    """A digest of what the function does: its bytecode, names and constants, nested functions
    included, not its line numbers (a line added above it changes nothing)."""
    digest = hashlib.sha256()
    _feed(digest, code)
    return digest.hexdigest()[:16]


def _feed(digest: Any, code: CodeType) -> None:
    digest.update(code.co_code)
    digest.update(repr((code.co_names, code.co_varnames, code.co_freevars)).encode())
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _feed(digest, const)
        elif isinstance(const, frozenset):  # its order changes with the hash seed
            digest.update(repr(sorted(map(repr, const))).encode())
        else:
            digest.update(repr(const).encode())
