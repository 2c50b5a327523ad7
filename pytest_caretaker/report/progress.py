"""Progress while healing: a line per problem as its repair begins, and on a terminal a live line.

The engine repairs problems (a root cause, however many tests fail from it), so progress counts
problems: ``healing 2/3 tests/test_io.py::test_read …``, with ``(2 failures)`` for a problem that
several tests fail from, and one line first when there are fewer problems than failures
(``caretaker: 4 failures in 3 problems; …``). A fix that
heals only some cases of its problem makes the rest another problem: the count grows then, and
still ends at its total.

On a terminal (never in a pipe or a CI log) the current line is redrawn every second with the
seconds it has taken, so that a long search or model call shows it is alive (``Live``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_caretaker.settings import detect_ci
from pytest_caretaker.text import plural


@dataclass(frozen=True)
class Step:
    """A problem's repair begins."""

    index: int  # 1-based, in the order repairs begin
    problems: int  # the problems known so far
    failures: int  # the session's failures
    nodeid: str  # the problem's lead case
    cases: int = 1  # the failures of this problem


def intro(step: Step) -> str | None:
    """The line before the first step when failures share root causes; else None."""
    if step.index != 1 or step.problems >= step.failures:
        return None
    return (
        f"caretaker: {plural(step.failures, 'failure')} in {plural(step.problems, 'problem')}; "
        "each problem is repaired once for all its failures"
    )


def line(step: Step) -> str:
    """``healing 2/3 tests/test_io.py::test_read …``."""
    more = f" ({plural(step.cases, 'failure')})" if step.cases > 1 else ""
    return f"healing {step.index}/{step.problems} {step.nodeid}{more} …"


class Screen(Protocol):
    """Where the live line is drawn: a terminal (a text stream that is one)."""

    def write(self, text: str) -> object: ...
    def flush(self) -> object: ...


class Live:
    """A line redrawn every ``every`` seconds with the seconds since it was shown; ``show``
    leaves the current line as it was last drawn and starts the next one; ``close`` ends it.
    Thread-safe: repairs run in threads."""

    def __init__(
        self, screen: Screen, every: float = 1.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.screen = screen
        self.every = every
        self.clock = clock
        self._text = ""
        self._since = 0.0
        self._drawn = 0  # characters of the line as last drawn, to blank what a redraw leaves
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def show(self, text: str) -> None:
        with self._lock:
            if self._text:
                self.screen.write("\n")
            self._text, self._since, self._drawn = text, self.clock(), 0
            self._draw()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="caretaker-live", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self._text:
                self.screen.write("\n")
                self.screen.flush()
            self._text = ""

    def tick(self) -> None:
        """Redraw the current line with its seconds (what the thread does every second)."""
        with self._lock:
            if self._text:
                self._draw()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.tick()

    def _draw(self) -> None:
        seconds = int(self.clock() - self._since)
        drawn = f"{self._text} {seconds} s" if seconds else self._text
        self.screen.write("\r" + drawn + " " * max(0, self._drawn - len(drawn)))
        self.screen.flush()
        self._drawn = len(drawn)


class Lines(Protocol):
    """Where progress lines go: pytest's terminal reporter."""

    def ensure_newline(self) -> None: ...
    def write_line(self, line: str, **markup: bool) -> None: ...


class Progress:
    """The engine's progress callback: nothing under -q, else a line per step; on a terminal
    (not in CI) each line is live. Call ``close`` once healing is done."""

    def __init__(self, lines: Lines | None, live: Live | None = None) -> None:
        self.lines = lines
        self.live = live
        self._lock = threading.Lock()

    @classmethod
    def on(cls, terminal: Any, quiet: bool, env: Mapping[str, str]) -> Progress:
        """Progress for pytest's terminal reporter (None: none), at its verbosity."""
        if terminal is None or quiet:
            return cls(None)
        return cls(terminal, Live(_Screen(terminal)) if is_terminal(terminal, env) else None)

    def __call__(self, step: Step) -> None:
        said = [text for text in (intro(step), line(step)) if text is not None]
        with self._lock:
            if self.lines is not None and step.index == 1:
                self.lines.ensure_newline()
            for text in said:
                if self.live is not None:
                    self.live.show(text)
                elif self.lines is not None:
                    self.lines.write_line(text)

    def close(self) -> None:
        if self.live is not None:
            self.live.close()


def is_terminal(terminal: Any, env: Mapping[str, str]) -> bool:
    """Whether pytest writes to a terminal a line can be redrawn on: not a pipe or a file, not
    a CI log (some CI services give a pseudo-terminal), not a dumb terminal."""
    isatty = getattr(terminal, "isatty", False)  # a method in recent pytest, a bool in 8.0
    tty = isatty() if callable(isatty) else bool(isatty)
    return tty and detect_ci(env) is None and env.get("TERM") != "dumb"


class _Screen:
    """The live line's screen: pytest's terminal writer, raw."""

    def __init__(self, terminal: Any) -> None:
        self.writer = terminal.config.get_terminal_writer()

    def write(self, text: str) -> object:
        return self.writer.write(text)

    def flush(self) -> object:
        return self.writer.flush()
