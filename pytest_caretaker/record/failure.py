"""Record: what a failed test left behind, as plain frozen data.

Runs inside pytest_runtest_makereport for failed phases only, so it must stay cheap: no
subprocess, and the only source parsed is the secrets' learning (code.py), once a file per
session; localization happens after the run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.record.redact import Redactor, secret_name
from pytest_caretaker.record.secrets import learnable, strong_name
from pytest_caretaker.results import Failure, Frame

MAX_LONGREPR = 6_000
MAX_OUTPUT = 2_000
MAX_LOCALS = 12
MAX_LOCAL_REPR = 160
#: The longest secret a local's shown repr may begin and still be redacted whole.
MAX_SECRET = 4_096


def remember_local(redactor: Redactor, name: str, value: object) -> None:
    """Teach the redactor a local's value: a name that speaks of a secret by itself (password,
    token) teaches any value; a lookup's name (key, session, auth) a string only when it is
    shaped like a secret (``for key in ("major", "patch")``: the word "patch" is no secret)."""
    if strong_name(name):
        redactor.remember(value, f"value of local {name}")
        return
    values = value if isinstance(value, (tuple, list)) else (value,)  # auth = ("bob", "…")
    for item in values:
        if isinstance(item, str) and learnable(name, item):
            redactor.remember(item, f"value of local {name}")


def safe_repr(name: str, value: object, redactor: Redactor | None = None) -> str:
    """A short repr of a local, redacted before it is cut (a cut secret would no longer match);
    a secret-looking name hides the value and teaches it to the redactor."""
    if secret_name(name):
        if redactor is not None:
            remember_local(redactor, name, value)
        return "<redacted: name looks like a secret>"
    try:
        text = repr(value)
    except Exception as error:  # a user's __repr__ may raise anything
        return f"<repr failed: {type(error).__name__}>"
    if redactor is not None:
        # Cut, with room for a secret that starts within what is shown, before it is redacted:
        # the repr of a large local (a table, a file's bytes) costs its size, not its size
        # times the redactor's patterns.
        text = redactor(text[: MAX_LOCAL_REPR + MAX_SECRET])
    if len(text) > MAX_LOCAL_REPR:
        text = text[: MAX_LOCAL_REPR - 3] + "..."
    return text


def _visible(f_locals: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(name, value) for name, value in f_locals.items() if not name.startswith("@")]


#: The most exceptions of one failure's chain whose frames are recorded.
MAX_CHAIN = 16


def chain(error: BaseException) -> list[BaseException]:
    """The exceptions a failure's traceback shows, the first raised first and error last: what
    error was raised from or while handling, and an exception group's members. pytest's
    warning of an exception raised in a thread or in ``__del__`` (an error under ``-W error``)
    is raised in pytest's code, from the one raised in the project's."""
    found: list[BaseException] = []
    seen: set[int] = set()

    def walk(current: BaseException) -> None:
        if id(current) in seen or len(seen) >= MAX_CHAIN:
            return
        seen.add(id(current))
        hidden = current.__suppress_context__  # raise ... from None
        earlier = current.__cause__ or (None if hidden else current.__context__)
        for part in [earlier, *(getattr(current, "exceptions", None) or ())]:
            if isinstance(part, BaseException):
                walk(part)
        found.append(current)  # after what it was raised from

    walk(error)
    return found


def project_frames(
    tracebacks: Sequence[TracebackType | None],
    root: Path,
    redactor: Redactor | None = None,
    test: str = "",
) -> tuple[Frame, ...]:
    """The frames of project files in the tracebacks, in order, their locals redacted; a frame
    in more than one (a function that caught an exception and raised another) counts where it
    is last. The redactor first learns the secret-named locals of every frame, then the secrets
    the code of the test file (test) and of the frames' files holds (code.py), before anything
    is shown."""
    entries: dict[FrameType, tuple[str, int, str, list[tuple[str, Any]]]] = {}
    for tb in tracebacks:
        while tb is not None:
            frame = tb.tb_frame
            rel = project_relpath(frame.f_code.co_filename, root)
            if rel is not None:
                entries.pop(frame, None)
                entries[frame] = (rel, tb.tb_lineno, frame.f_code.co_name, _visible(frame.f_locals))
            tb = tb.tb_next
    if redactor is not None:  # first learn every secret of every frame, then show the rest
        for *_, items in entries.values():
            for name, value in items:
                if secret_name(name):
                    remember_local(redactor, name, value)
        redactor.learn_code(root, [*([test] if test else []), *(e[0] for e in entries.values())])
    return tuple(
        Frame(
            rel,
            lineno,
            name,
            tuple((key, safe_repr(key, value, redactor)) for key, value in items[:MAX_LOCALS]),
        )
        for rel, lineno, name, items in entries.values()
    )


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit // 3
    return text[:head] + "\n[... truncated ...]\n" + text[-(limit - head) :]


def record(
    nodeid: str,
    when: str,
    test_path: Path,
    exc: BaseException,
    longrepr: str,
    output: str,
    root: Path,
    redactor: Redactor | None = None,
) -> Failure:
    """The failure as data, with every secret the redactor knows or recognises removed."""
    redactor = redactor if redactor is not None else Redactor(os.environ)
    rel = project_relpath(str(test_path), root) or test_path.name
    tracebacks = [raised.__traceback__ for raised in chain(exc)]
    frames = project_frames(tracebacks, root, redactor, rel)  # first: it learns secrets
    try:
        message = str(exc) or ("assert" if isinstance(exc, AssertionError) else "")
    except Exception as error:  # a user's __str__ may raise anything
        message = f"<str() failed: {type(error).__name__}>"
    return Failure(
        nodeid=nodeid,
        when=when,
        path=rel,
        exc_type=type(exc).__qualname__,
        message=_clip(redactor(message), 1_000),
        longrepr=_clip(redactor(longrepr), MAX_LONGREPR),
        frames=frames,
        output=_clip(redactor(output), MAX_OUTPUT),
    )


def to_data(failure: Failure) -> dict[str, Any]:
    """The failure as JSON-able data (a pytest-xdist worker sends it to the controller)."""
    return asdict(failure)


def from_data(data: dict[str, Any]) -> Failure:
    frames = tuple(
        Frame(
            f["path"], int(f["lineno"]), f["name"], tuple((str(n), str(v)) for n, v in f["locals"])
        )
        for f in data["frames"]
    )
    return Failure(**{**data, "frames": frames})
