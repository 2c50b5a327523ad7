"""The model process: litellm imported, warmed up and asked in a process of its own.

Importing litellm takes seconds, and its first request as long again. Done in the process that
runs the tests, that work competes with them for the one interpreter lock, and at exit the
interpreter spends about a second more collecting litellm's objects. So when a model is
configured, the first failure starts serve.py (``python -I``, away from the project), which
imports litellm and sends its warm-up request on another core while the run goes on; each request
to a model (``ask``) and each question about one (``info``) then goes to it as one JSON line and
is answered by one line, several at a time. It ends when this side closes its input, or after
IDLE seconds without a request.

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
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

#: Seconds added to what a request may take (its tries and waits) before its answer counts as
#: lost: the model process is then taken for hung, and the call fails with a reason.
SLACK = 60.0
#: Seconds without a request after which the model process leaves (serve.py); the next call
#: starts another. A pytest session ends it itself, long before.
IDLE = 600.0
#: The package's parent folder: the model process imports caretaker from where this one did,
#: and nothing from the project (it runs isolated from the working directory and PYTHON*).
_HOME = str(Path(__file__).resolve().parents[2])
#: The collector off while litellm is imported (serve.py turns it back on): its passes over the
#: hundreds of thousands of objects the import makes cost about a sixth of the import.
_CODE = (
    "import gc; gc.disable(); import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from pytest_caretaker.llm.serve import main; main(float(sys.argv[1]), sys.argv[2:])"
)


class ModelProcess:
    """One model process and the requests waiting for its answers."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.ids = itertools.count(1)
        self.lock = threading.Lock()
        self.waiting: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self.dead = False
        self.owner = os.getpid()  # a forked copy of this process has no reader: not its process
        self.began = time.perf_counter()
        self.ready = threading.Event()  # litellm imported and warmed up over there
        threading.Thread(target=self._read, name="caretaker-models", daemon=True).start()

    @classmethod
    def spawn(cls, models: Sequence[str]) -> ModelProcess | None:
        env = dict(os.environ)
        # As in this process (client.litellm): no network for the price table, no .env loaded.
        env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        env.setdefault("LITELLM_MODE", "PRODUCTION")
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-c", _CODE, _HOME, f"{IDLE:g}", *models],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                text=True,
                encoding="utf-8",
            )
        except OSError:
            return None
        return cls(process)

    def call(self, request: dict[str, Any], limit: float) -> dict[str, Any] | None:
        """The answer to ``request``; None when the process is gone before answering."""
        done = threading.Event()
        box: list[dict[str, Any]] = []
        with self.lock:
            if self.dead:
                return None
            number = next(self.ids)
            self.waiting[number] = (done, box)
            try:
                _send(self.process.stdin, {"id": number, **request})
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
        """End it at once: what it was asking is no longer wanted, and its exit is not waited
        for beyond the kill."""
        with self.lock:
            self.dead = True
        with contextlib.suppress(OSError, ValueError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.wait()

    def _warmed(self) -> None:
        self.ready.set()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
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
        with self.lock:  # it ended: every waiting call goes on in this process
            self.dead = True
            waiters, self.waiting = list(self.waiting.values()), {}
        for done, _box in waiters:
            done.set()


def _send(stream: IO[str] | None, message: dict[str, Any]) -> None:
    if stream is None:
        raise ValueError("no input")
    stream.write(json.dumps(message) + "\n")
    stream.flush()


_PROCESS: ModelProcess | None = None
_STARTING = threading.Lock()


def begin(models: Sequence[str]) -> bool:
    """Start the model process for ``models`` (litellm names) unless one runs; False when there
    is none (litellm is imported here already, or the process could not start)."""
    global _PROCESS
    with _STARTING:
        if running() is not None:
            return True
        if "litellm" in sys.modules:
            return False
        _PROCESS = ModelProcess.spawn(models)
        return _PROCESS is not None


def stop() -> None:
    """End the model process, if one runs (at the end of a session)."""
    global _PROCESS
    with _STARTING:
        process, _PROCESS = _PROCESS, None
    if process is not None and process.owner == os.getpid():  # a forked copy only forgets it
        process.close()


def running() -> ModelProcess | None:
    process = _PROCESS
    if process is None or process.dead or process.owner != os.getpid():
        return None
    return process


def call(op: str, arguments: dict[str, Any], limit: float) -> dict[str, Any] | None:
    """The model process's answer to one request, or None: then ask in this process."""
    process = running()
    if process is None:
        return None
    return process.call({"op": op, "args": arguments}, limit)
