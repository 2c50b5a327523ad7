"""``install()``: record every unhandled exception of the process — the main thread's
(``sys.excepthook``), a thread's (``threading.excepthook``) and, when a loop runs, an asyncio
task's (the loop's exception handler) — then let Python report it as it would have.

A hook has no call to replay, so its records are not replayable; ``@heal`` on the function
makes its crashes replayable. The hooks import only the standard library until they fire.
"""

from __future__ import annotations

import sys
import threading
from types import TracebackType
from typing import Any

from pytest_caretaker.runtime.mode import resolve_mode

_installed: set[str] = set()


def install(mode: str | None = None) -> None:
    """Install the hooks (once; again is harmless). Mode as for @heal: off installs nothing;
    record and heal record (a hook cannot retry what already ended)."""
    if resolve_mode(mode) == "off":
        return
    if "sys" not in _installed:
        _installed.add("sys")
        previous = sys.excepthook

        def excepthook(
            kind: type[BaseException], error: BaseException, tb: TracebackType | None
        ) -> None:
            recorded(error, "excepthook")
            previous(kind, error, tb)

        sys.excepthook = excepthook
    if "threading" not in _installed:
        _installed.add("threading")
        before = threading.excepthook

        def thread_hook(args: Any) -> None:
            if args.exc_value is not None:
                recorded(args.exc_value, f"thread {getattr(args.thread, 'name', '?')}")
            before(args)

        threading.excepthook = thread_hook
    _asyncio()


def _asyncio() -> None:
    """The running loop's handler, when install() is called inside one."""
    if "asyncio" not in sys.modules:
        return
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    before = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, BaseException):
            recorded(error, "asyncio")
        if before is not None:
            before(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


def recorded(error: BaseException, source: str) -> None:
    """Record error as a crash of the innermost project function; never raises."""
    if isinstance(error, (KeyboardInterrupt, SystemExit)):
        return
    try:
        from pytest_caretaker.runtime.caught import record_unhandled

        record_unhandled(error, source)
    except Exception as trouble:  # the user's traceback matters more than our record
        print(f"caretaker: could not record the crash: {trouble!r}", file=sys.stderr)
