"""The model process: litellm imported, warmed up and asked in a process of its own.

Importing litellm takes seconds, and its first request as long again. Done in the process that
runs the tests, that work competes with them for the one interpreter lock, and at exit the
interpreter spends about a second more collecting litellm's objects. So when a model is
configured, the first failure starts serve.py (``python -I``, away from the project), which
imports litellm and sends its warm-up request on another core while the run goes on; each request
to a model (``ask``) and each question about one (``info``) then goes to it as one JSON line and
is answered by one line, several at a time. It ends when this side closes its input, or after
IDLE seconds without a request. Or the model process is the kept one (kept.py), reached through
an ``opener``: it was started by a session before, or is started now, and outlives this one.

Nothing is lost when it is not there: when litellm is already imported here (a second session
in the same process), when the process cannot start, or when it ends before answering, the same
call runs in this process (None from here means exactly that). Standard library only.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pytest_caretaker import own

#: Seconds added to what a request may take (its tries and waits) before its answer counts as
#: lost: the model process is then taken for hung, and the call fails with a reason.
SLACK = 60.0
#: Seconds without a request after which the model process leaves (serve.py); the next call
#: starts another. A pytest session ends it itself, long before.
IDLE = 600.0
#: The package's folder: the model process imports caretaker from where this one did, and only
#: caretaker: its folder's neighbours (the test environment's packages, or a checkout's tests)
#: are not put on its path, nor anything of the project (it runs isolated from the working
#: directory and PYTHON*). It may run from another environment (extra.py), whose litellm and
#: dependencies it then imports.
HOME = str(Path(__file__).resolve().parents[1])
#: The collector off while litellm is imported (serve.py turns it back on): its passes over the
#: hundreds of thousands of objects the import makes cost about a sixth of the import.
CODE = (
    "import gc; gc.disable(); import sys, importlib.util as u; home = sys.argv.pop(1); "
    "s = u.spec_from_file_location('pytest_caretaker', home + '/__init__.py', "
    "submodule_search_locations=[home]); m = u.module_from_spec(s); "
    "sys.modules['pytest_caretaker'] = m; s.loader.exec_module(m); "
    "from pytest_caretaker.llm.serve import main; "
    "main(float(sys.argv[1]), sys.argv[2], sys.argv[3:])"
)
#: Seconds a call waits for the model process to be reached (started, or connected to).
LINKING = 15.0
#: What differs from one moment of a session to the next, or between sessions of one shell, and
#: means nothing to a model call: left out of the model process's environment (and so of what
#: decides whether a kept one can serve this session).
VOLATILE = frozenset(
    {
        *("PWD", "OLDPWD", "SHLVL", "_", "COLUMNS", "LINES"),
        *("PYTEST_CURRENT_TEST", "PYTEST_VERSION", "PYTEST_XDIST_WORKER"),
        *("PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"),
    }
)


@dataclass
class Link:
    """How this side talks to a model process: lines out, lines in, and how to let go of it."""

    reader: IO[str]
    writer: IO[str]
    end: Callable[[], None]
    pid: int
    #: The process, when this side started it and it ends with the session (not a kept one).
    process: subprocess.Popen[str] | None = None
    #: Seconds a kept process this side started stays after the session (0: none started here).
    kept: float = 0.0

    @classmethod
    def of(cls, process: subprocess.Popen[str]) -> Link:
        """A child process's pipes; letting go ends it at once (what it was asking is no longer
        wanted, and its exit is not waited for beyond the kill)."""
        assert process.stdin is not None and process.stdout is not None

        def end() -> None:
            with contextlib.suppress(OSError, ValueError):
                if process.stdin is not None:
                    process.stdin.close()
            with contextlib.suppress(OSError):
                process.kill()
            process.wait()

        return cls(process.stdout, process.stdin, end, process.pid, process)


class ModelProcess:
    """One model process and the requests waiting for its answers. ``opener`` reaches it (starts
    it, or connects to a kept one: kept.py) in a thread of its own, so the first failure does not
    wait for it; a call waits for it."""

    def __init__(self, opener: Callable[[], Link | None]) -> None:
        self.link: Link | None = None
        self.linked = threading.Event()
        self.ids = itertools.count(1)
        self.lock = threading.Lock()
        self.waiting: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self.dead = False
        self.owner = os.getpid()  # a forked copy of this process has no reader: not its process
        self.began = time.perf_counter()
        self.ready = threading.Event()  # litellm imported and warmed up over there
        threading.Thread(
            target=self._run, args=(opener,), name="caretaker-models", daemon=True
        ).start()

    @property
    def process(self) -> subprocess.Popen[str] | None:
        self.linked.wait(LINKING)
        return self.link.process if self.link is not None else None

    @classmethod
    def spawn(
        cls, models: Sequence[str], opener: Callable[[], Link | None] | None = None
    ) -> ModelProcess:
        """Start the model process for this session, or reach one through ``opener`` (the kept
        one: kept.py)."""
        return cls(opener or (lambda: child(models)))

    def call(self, request: dict[str, Any], limit: float) -> dict[str, Any] | None:
        """The answer to ``request``; None when the process is gone before answering."""
        if not self.linked.wait(min(limit, LINKING)):
            return None
        done = threading.Event()
        box: list[dict[str, Any]] = []
        with self.lock:
            if self.dead or self.link is None:
                return None
            number = next(self.ids)
            self.waiting[number] = (done, box)
            try:
                _send(self.link.writer, {"id": number, **request})
            except (OSError, ValueError):  # its input is closed: it ended
                self.waiting.pop(number, None)
                self.dead = True
                return None
        if not done.wait(limit):
            with self.lock:
                self.waiting.pop(number, None)
            return {"error": f"caretaker's model process did not answer within {limit:g} s"}
        return box[0] if box else None

    def close(self) -> None:
        """Let go of it: a session's own process ends at once, a kept one stays for the next."""
        with self.lock:
            self.dead = True
            link = self.link
        if link is not None:
            link.end()

    def _warmed(self) -> None:
        self.ready.set()

    def _run(self, opener: Callable[[], Link | None]) -> None:
        try:
            link = opener()
        except OSError:
            link = None
        with self.lock:
            self.link = link
            dead, self.dead = self.dead, self.dead or link is None
        self.linked.set()
        if link is not None and dead:  # closed while it was being reached
            link.end()
        elif link is not None:
            self._read(link.reader)
        self._ended()

    def _read(self, reader: IO[str]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in reader:
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue  # not ours: nothing else writes there, but never trust that
                if not isinstance(answer, dict):
                    continue
                if answer.get("ready"):
                    self._warmed()
                    continue
                with self.lock:
                    waiter = self.waiting.pop(answer.get("id"), None)  # type: ignore[arg-type]
                if waiter is not None:
                    waiter[1].append(answer)
                    waiter[0].set()

    def _ended(self) -> None:
        with self.lock:  # it ended: every waiting call goes on in this process
            self.dead = True
            waiters, self.waiting = list(self.waiting.values()), {}
        for done, _box in waiters:
            done.set()


def child(models: Sequence[str]) -> Link | None:
    """A model process of this session's own, on its stdin and stdout."""
    try:
        process = own.Popen(  # started in a thread, maybe while a test patches Popen
            [interpreter(), "-I", "-c", CODE, HOME, f"{IDLE:g}", "-", *models],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=environment(),
            text=True,
            encoding="utf-8",
        )
    except OSError:
        return None
    return Link.of(process)


def interpreter(env: Mapping[str, str] = os.environ) -> str:
    """The Python the model process runs on: that of the environment with litellm (extra.py),
    this one's when there is none (the call then fails there, with its reason)."""
    from pytest_caretaker.llm import extra

    located = extra.where(env)
    return located.python if located is not None else sys.executable


def environment(source: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The model process's environment: this one's (``source``), and as in this process
    (client.litellm): no network for the price table, no .env loaded."""
    env = {name: value for name, value in source.items() if name not in VOLATILE}
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    env.setdefault("LITELLM_MODE", "PRODUCTION")
    return env


def _send(stream: IO[str] | None, message: dict[str, Any]) -> None:
    if stream is None:
        raise ValueError("no input")
    stream.write(json.dumps(message) + "\n")
    stream.flush()


_PROCESS: ModelProcess | None = None
_STARTING = threading.Lock()


def begin(models: Sequence[str], opener: Callable[[], Link | None] | None = None) -> bool:
    """Start the model process for ``models`` (litellm names), or reach one through ``opener``,
    unless one runs; False when litellm is imported here already (then it is asked here)."""
    global _PROCESS
    with _STARTING:
        if running() is not None:
            return True
        if "litellm" in sys.modules:
            return False
        _PROCESS = ModelProcess.spawn(models, opener)
        return True


def stop() -> float:
    """Let go of the model process, if one runs (at the end of a session); the seconds it stays
    for the next session when this one started it kept, else 0."""
    global _PROCESS
    with _STARTING:
        process, _PROCESS = _PROCESS, None
    if process is None or process.owner != os.getpid():  # a forked copy only forgets it
        return 0.0
    process.close()
    link = process.link
    return link.kept if link is not None else 0.0


def running() -> ModelProcess | None:
    process = _PROCESS
    if process is None or process.dead or process.owner != os.getpid():
        return None
    if process.process is not None and process.process.poll() is not None:
        return None  # it exited, and its reader has not seen the end yet
    return process


def call(op: str, arguments: dict[str, Any], limit: float) -> dict[str, Any] | None:
    """The model process's answer to one request, or None: then ask in this process."""
    process = running()
    if process is None:
        return None
    return process.call({"op": op, "args": arguments}, limit)
