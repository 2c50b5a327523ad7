"""A decorated function's good calls: a small sample of the calls that returned, each kept as its
arguments as they came in and its result, both pickled, for a runtime fix to reproduce
(check.py replays them; goodcalls.py keeps them on disk).

What a call pays matters most, so the wrapper (decorator.py) counts down to the next call the
sample takes: every other call costs a decrement, and only a call the sample takes is pickled.
The sample is a bottom-k sample, the mergeable form of reservoir sampling: each call has a
random priority and the SIZE calls of lowest priority are the sample. Rather than drawing a
priority per call, the number of calls before the next one whose priority falls below the
sample's highest is drawn at once (it is geometric; Li's Algorithm L draws the same skips). So
every call has the same chance to be kept, however long the program runs, and two samples —
this process's and the one an earlier process left on disk — merge exactly: the SIZE lowest
priorities of both. The same call made twice may be kept twice here (telling them apart would
mean pickling every call); it is written once.

The sample is written to disk (goodcalls.py) when a crash of the function is recorded (live.py),
at exit, and when a call enters it FLUSH_EVERY seconds or more after the last write
(decorator.py): a server that is killed, and so never exits, loses at most that much. Standard
library only: every decorated import loads this module.
"""

from __future__ import annotations

import bisect
import math
import pickle
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_caretaker.runtime.mode import project_root

SIZE = 8  # good calls kept per function
MAX_PICKLE = 64 * 1024  # bytes of a call's arguments, and of its result, pickled
FLUSH_EVERY = 60.0  # seconds


@dataclass(frozen=True)
class Kept:
    """One good call: its priority (the lowest SIZE are kept), its arguments as they came in
    (``pickle((args, kwargs))``) and what it returned, pickled; both empty for a call that did
    not pickle (it holds its place, and is not written)."""

    priority: float
    call: bytes
    result: bytes


class Sample:
    """The good calls of one function in this process, lowest priority first."""

    def __init__(self, id: str, function: Callable[..., Any], size: int = SIZE) -> None:
        self.id = id
        self.function = function
        self.size = size
        self.kept: list[Kept] = []
        self.lock = threading.Lock()
        self.changed = False  # kept calls not on disk yet
        self.written = time.monotonic()
        #: The project the sample is written to, found at the first call kept (at exit the
        #: environment that named it, $CARETAKER_ROOT, may be gone).
        self.root: Path | None = None

    def skip(self) -> int:
        """How many calls to let pass before the next one the sample takes (0: the next one)."""
        kept = self.kept
        if len(kept) < self.size:
            return 0
        bound = kept[-1].priority
        if bound <= 0.0:
            return sys.maxsize
        # The calls before the first whose priority is below bound: failures before a success
        # of chance bound, drawn by inverting the geometric distribution.
        return int(math.log(1.0 - random.random()) / math.log1p(-bound))

    def offer(self, call: bytes | Exception | None, result: Any) -> bool:
        """Put a call the countdown took in the sample: its arguments (call, pickled before it
        ran) and its result, when both pickle within MAX_PICKLE; else a place holder without
        them, which lengthens the countdown as any call does (were it left out, a function whose
        calls never pickle would be pickled at every call). Whether the call was kept."""
        kept = self.kept
        # The calls skipped had a priority above the highest kept: this one's is below it.
        priority = random.random() * (kept[-1].priority if len(kept) >= self.size else 1.0)
        returned = _pickled(result) if isinstance(call, bytes) and len(call) <= MAX_PICKLE else None
        entry = Kept(priority, call, returned) if isinstance(call, bytes) and returned else None
        with self.lock:
            if len(kept) >= self.size:
                if priority >= kept[-1].priority:  # other threads' calls took the places
                    return False
                kept.pop()
            bisect.insort(kept, entry or Kept(priority, b"", b""), key=_priority)
            if entry is None:
                return False
            self.changed = True
        if self.root is None:
            self.root = project_root(self.function.__code__.co_filename)
        return True

    def due(self) -> bool:
        """Whether the sample should be written now: FLUSH_EVERY has passed since it was."""
        return self.changed and time.monotonic() - self.written >= FLUSH_EVERY

    def taken(self) -> list[Kept]:
        """The calls kept, for writing: the sample counts as written from now on."""
        with self.lock:
            self.changed = False
            self.written = time.monotonic()
            return list(self.kept)


def _priority(kept: Kept) -> float:
    return kept.priority


def _pickled(result: Any) -> bytes | None:
    try:
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # anything a user's __reduce__ raises
        return None
    return data if len(data) <= MAX_PICKLE else None
