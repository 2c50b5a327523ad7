"""What happens in the running process when a decorated call raises: the crash is recorded,
and beside it the function's good calls (goodcalls.py); in heal mode the function is healed —
from the store when a fix is kept for its source, else by the chain (repair.py) with the
recorded call, its good calls and its tests as the proof — and the fix is swapped into the
running function (swap.py), unless it is UNSURE. Whatever happens, one line on stderr says it;
the caller (decorator.py) retries the call, or raises the exception as it was.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_caretaker.runtime.mode import Store, project_root
from pytest_caretaker.runtime.records import Crash, Where, recorded, write
from pytest_caretaker.runtime.sites import Site

_state = threading.local()  # a failure while healing (in this thread) is only recorded


def where_of(site: Site) -> Where:
    code = site.function.__code__
    module = getattr(site.function, "__module__", None) or "__main__"
    qualname = site.function.__qualname__
    return Where(
        site.id,
        site.description,
        module,
        qualname,
        code.co_filename,
        code.co_firstlineno,
        site.coroutine,
    )


def failed(
    site: Site,
    error: Exception,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    before: bytes | Exception | None,
) -> bool:
    """Record the crash; in heal mode, whether a proven fix is in place now."""
    if recorded(error):  # a decorated function it passed through first has it
        return False
    where = where_of(site)
    root = project_root(where.file)
    crash = write(root, where, error, (args, kwargs), before)
    _keep_good_calls(site, root)
    if site.mode != "heal" or getattr(_state, "busy", False):
        return False
    with site.lock:  # one heal of a function at a time; the others wait for it
        if not _ran(site.function.__code__, error):
            return True  # another thread swapped a fix in while this call ran
        _state.busy = True
        try:
            return _heal(site, crash, root, error)
        finally:
            _state.busy = False


def _keep_good_calls(site: Site, root: Path) -> None:
    """Write the function's good calls beside its crash: a repair (heal mode here, or
    ``caretaker crashes heal`` later) replays them with each fix."""
    if not site.sample.changed:
        return
    from pytest_caretaker.runtime.goodcalls import write as write_good

    try:
        write_good(site.sample, root)
    except Exception as trouble:  # the crash is recorded: the good calls are evidence, no more
        _say(f"could not keep the good calls of {site.id}: {trouble!r}")


def _ran(code: Any, error: BaseException) -> bool:
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return True
        tb = tb.tb_next
    return False


@dataclass(frozen=True)
class Found:
    """The function's source as the project's file has it, and where the fix is kept."""

    source: str
    key: str
    store: Store


def _heal(site: Site, crash: Crash, root: Path, error: Exception) -> bool:
    from pytest_caretaker.runtime.store import FOLDER, FileStore, key

    said = f"the {type(error).__name__} is raised as it was"
    source = _source(crash, root)
    if source is None:
        _say(f"{site.id} not healed: its source is not a file of the project at {root}; {said}")
        return False
    store = site.store if site.store is not None else FileStore(root / ".caretaker" / FOLDER)
    found = Found(source, key(site.id, source), store)
    if _stored(site, crash, root, found):
        return True
    from pytest_caretaker.runtime.fixing import fix

    outcome = fix(site.id, crash, root, found.key, found.store)
    if outcome is not None:
        _say(f"{site.id} not healed: {outcome}; {said}")
        return False
    return True


def _source(crash: Crash, root: Path) -> str | None:
    from pytest_caretaker.project.files import ProjectFiles, project_relpath

    where = crash.where
    rel = project_relpath(where.file, root)
    source = ProjectFiles(root).get(rel) if rel is not None else None
    definition = source.find(where.qualname) if source is not None else None
    if source is None or definition is None:
        return None
    return source.source_of(definition)


def _stored(site: Site, crash: Crash, root: Path, found: Found) -> bool:
    """Whether the fix kept for this source was swapped in (proved when it was kept)."""
    from pytest_caretaker.runtime.fixing import patched
    from pytest_caretaker.runtime.store import edits_of
    from pytest_caretaker.runtime.swap import NotSwapped, swap

    try:
        code = found.store.get(found.key)
    except Exception as error:  # a user's store (a database) may fail any way
        _say(f"the store could not be read ({error!r}); {site.id} is repaired anew")
        return False
    edits = edits_of(code) if code else ()
    changes = patched(edits, root) if edits else None
    if changes is None:
        return False
    try:
        swap(edits, changes, root)
    except NotSwapped as why:
        _say(f"the fix kept for {site.id} cannot be used ({why}); it is repaired anew")
        return False
    _say(f"healed {site.id} with the fix kept for its source (no model asked); retrying the call")
    return True


def _say(line: str) -> None:
    print(f"caretaker: {line}", file=sys.stderr, flush=True)
