"""A timeline of one heal: what runs when, on which thread (and in which process), for the
benchmarks to print (not part of the tests).

    with Timeline() as timeline:
        pytest.main([...])          # in this process, so its threads can be watched
    print(timeline.text())

It wraps the stages' entry points in place while it is active (the test run, the first failure,
litellm's import or the model process, each warm server's start, each verification run, trials,
model requests, the selection and the report) and restores them after; nothing in caretaker
knows about it.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Span:
    what: str
    thread: str
    start: float
    end: float


#: Only its first call is shown: the one that starts the warm server and litellm's import.
FIRST = "first failure recorded: starts"
#: (module, attribute path, label): the entry points watched.
WATCHED = (
    ("pytest_caretaker.plugin.session", "HealSession.failed", FIRST),
    ("pytest_caretaker.llm.client", "preload", "import litellm (in this process)"),
    ("pytest_caretaker.llm.remote", "ModelProcess.spawn", "start the model process"),
    ("pytest_caretaker.llm.remote", "ModelProcess._warmed", "model process: import + warm-up"),
    ("pytest_caretaker.llm.remote", "ModelProcess.call", "model process: request"),
    ("pytest_caretaker.verify.channel", "Channel.start", "spawn a server process"),
    ("pytest_caretaker.verify.runner", "Runner.run", "verify run"),
    ("pytest_caretaker.verify.trials", "Trials.start", "trial server start"),
    # ask() is bound into the repairer when its class is made; its reply says how long it took.
    ("pytest_caretaker.llm.client", "_reply", "model request (with retries)"),
    ("pytest_caretaker.engine", "heal_all", "heal (after the run)"),
    ("pytest_caretaker.engine", "_settle", "select + joint verify + patch"),
    ("pytest_caretaker.report.summary", "summary", "terminal summary"),
)


class Timeline:
    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.begun = 0.0
        self._undo: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def mark(self, what: str) -> None:
        now = time.perf_counter()
        with self._lock:
            self.spans.append(Span(what, threading.current_thread().name, now, now))

    def __enter__(self) -> Timeline:
        import importlib

        self.begun = time.perf_counter()
        for module_name, path, label in WATCHED:
            module = importlib.import_module(module_name)
            owner_name, _, name = path.rpartition(".")
            owner: Any = getattr(module, owner_name) if owner_name else module
            original = owner.__dict__[name]
            self._wrap(owner, name, original, label)
        return self

    def _wrap(self, owner: Any, name: str, original: Any, label: str) -> None:
        function = original.__func__ if isinstance(original, classmethod) else original

        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                end = time.perf_counter()
                if name == "_reply":  # (model, response, seconds): the request ended here
                    start = end - float(args[2])
                elif name == "_warmed":  # the model process, from its start until it is warm
                    start = args[0].began
                span = Span(label, threading.current_thread().name, start, end)
                with self._lock:
                    if label != FIRST or all(s.what != FIRST for s in self.spans):
                        self.spans.append(span)

        setattr(owner, name, classmethod(timed) if isinstance(original, classmethod) else timed)
        self._undo.append(lambda: setattr(owner, name, original))

    def __exit__(self, *exc_info: object) -> None:
        for undo in reversed(self._undo):
            undo()

    def text(self, width: int = 50) -> str:
        """One line per span: start and end (s from the beginning), thread, a bar, what."""
        if not self.spans:
            return "  (nothing recorded)"
        end = max(span.end for span in self.spans) - self.begun
        scale = width / max(end, 1e-9)
        lines = []
        for span in sorted(self.spans, key=lambda s: s.start):
            a, b = span.start - self.begun, span.end - self.begun
            left = int(a * scale)
            bar = " " * left + "#" * max(1, int(b * scale) - left)
            lines.append(f"  {a:6.2f} {b:6.2f}  {span.thread[:18]:18} |{bar:{width}}| {span.what}")
        return "\n".join(lines)
