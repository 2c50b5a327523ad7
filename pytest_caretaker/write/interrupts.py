"""Interrupts: Ctrl-C during --heal-write waits for the step under way; caretaker's git never
sees it.

A terminal's Ctrl-C sends SIGINT to its whole foreground process group, pytest and the git it is
running alike. A git stopped that way removes its index.lock, but the commit it was making is lost
and caretaker cannot tell. A SIGINT that reaches pytest alone (an IDE's stop button, ``kill
-INT``) ended caretaker while its git still ran in the user's repository: index.lock was there
after caretaker had exited, and the commit it had called interrupted was made after all.

So caretaker's git runs in a session of its own (repository.py), which no terminal signal
reaches, and while caretaker waits for a git command, or writes a fix (its files, then its
commit), SIGINT is held and raised as KeyboardInterrupt when that step is done: git always ends
its command itself and releases its lock, and caretaker reports what was done. The commands are
short and never wait for input (hardening.py: no hook, editor, prompt or network). Held in the
main thread only, where Python runs signal handlers; the handler found there (pytest's
KeyboardInterrupt, as a rule) then gets the signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Hold SIGINT while the block runs; deliver it, once, when the block ends."""
    caught: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        caught.append(signum)

    if threading.current_thread() is not threading.main_thread():
        yield  # no signal handler runs here: Ctrl-C is the main thread's
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is None:  # installed by other than Python: it could not be put back
        yield
        return
    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            signal.raise_signal(signal.SIGINT)
