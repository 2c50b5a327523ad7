"""The model process's side (remote.py starts it): import litellm, warm it up, answer requests.

One JSON line per request on stdin (``{"id", "op": "ask" | "info", "args"}``), one per answer on
stdout (``{"id", "reply"}``, ``{"id", "info"}`` or ``{"id", "error"}``, the one-line reason of a
ModelError), in the order they are done; first of all ``{"ready": seconds}`` once litellm is
warm. Requests are answered in threads of their own, so a slow model does not hold up the next,
and retries share one rate-limit state (ratelimits.py), as they would in one process. Anything
litellm prints goes to stderr: stdout carries the protocol only. At the end of its input the
process leaves at once, without the second the interpreter would spend tearing litellm down; it
also leaves after ``idle`` seconds with no request (a long-lived process that healed once at
runtime does not keep ~200 MB of litellm for the rest of its life; the next heal starts another).

The kept model process (kept.py) speaks the same lines with each session connected to its
socket, after a first line: ``{"hello": stamp, "project": folder}`` is answered
``{"welcome": true}`` when the stamp is its own (it notes the session's project folder), else
``{"retired": true}`` once it has stopped listening (it serves the sessions it has, then
leaves); ``{"status": true}`` by what ``caretaker model`` lists; ``{"stop": true}`` by
``{"stopped": pid}``, and it leaves. It leaves after ``idle`` seconds with no request, or its
``keep`` seconds with no session connected, and retires once it holds more than
``kept.MEMORY_CAP`` bytes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from pytest_caretaker.llm import capabilities, client, kept, warmup


def main(idle: float, listen: str, models: Sequence[str]) -> None:
    """Serve requests on this process's stdin and stdout (``listen`` is "-"), or as the kept
    model process (kept.py) on the abstract Unix socket ``listen`` names ("name@keep")."""
    began = time.monotonic()
    warmed = threading.Event()
    if listen == "-":
        protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)  # litellm's own prints, if any, are not answers
        sys.stdout = sys.stderr
        clock = _Idle(idle, idle)
        _start(models, began, warmed, clock)
        _converse(sys.stdin, protocol, warmed, clock, began)
        protocol.flush()
        os._exit(0)
    name, keep, stamp = listen.split("@")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind("\0" + name)
    except OSError:
        os._exit(0)  # another one took the name first: the sessions talk to it
    listener.listen(64)
    kept_here = _Kept(listener, stamp, began, models, _Idle(idle, float(keep), connections=0))
    _start(models, began, warmed, kept_here.clock)
    while True:
        try:
            connection, _ = listener.accept()
        except OSError:  # retired: the name is let go at once, the sessions it has are served
            listener.close()
            kept_here.freed.set()
            threading.Event().wait()  # the clock ends the process
        arguments = (connection, warmed, kept_here)
        threading.Thread(target=_connection, args=arguments, daemon=True).start()


class _Kept:
    """The kept process's state: its stamp, whether it still listens, what it reports."""

    def __init__(
        self, listener: socket.socket, stamp: str, began: float, models: Sequence[str], clock: _Idle
    ) -> None:
        self.listener, self.stamp, self.began, self.models = listener, stamp, began, models
        self.clock = clock
        self.freed = threading.Event()
        self.retiring = False
        self.projects: set[str] = set()  # of the sessions served: what ``caretaker model`` shows
        self.lock = threading.Lock()

    def retire(self) -> None:
        """Stop listening (the name is free when this returns); leave once no session is left."""
        with self.lock:
            if not self.retiring:
                self.retiring = True
                self.clock.retire()
                with contextlib.suppress(OSError):
                    self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accept
        self.freed.wait(5.0)

    def status(self) -> dict[str, Any]:
        with self.clock.lock:
            idle = 0.0 if self.clock.flying else time.monotonic() - self.clock.since
            sessions = self.clock.connections
        return {
            "pid": os.getpid(),
            "age": round(time.monotonic() - self.began, 1),
            "memory": _memory(),
            "idle": round(idle, 1),
            "sessions": sessions,
            "models": list(self.models),
            "projects": sorted(self.projects),
            "environment": sys.prefix,  # the virtual environment it runs from (extra.py)
        }


def _memory() -> int:
    """This process's resident memory, in bytes (0 where /proc does not say)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def _start(models: Sequence[str], began: float, warmed: threading.Event, clock: _Idle) -> None:
    def warm() -> None:
        warmup.warm(models)
        # Imported with the collector off (remote.py): what the import made lives as long as
        # the process, so it is moved out of the collector's sight before it runs again.
        gc.freeze()
        gc.enable()
        warmed.set()

    threading.Thread(target=warm, daemon=True).start()
    threading.Thread(target=clock.watch, daemon=True).start()


def _connection(connection: socket.socket, warmed: threading.Event, here: _Kept) -> None:
    """One session of the kept process: only its own user's, unsandboxed (kept.trusted)."""
    with connection:
        if not kept.trusted(connection):
            return
        try:
            connection.settimeout(kept.GREETING)
            first = json.loads(kept.read_line(connection) or "{}")
            connection.settimeout(None)
        except (OSError, ValueError):
            return
        if not isinstance(first, dict) or not _greeted(connection, first, here):
            return
        here.clock.connect(+1)
        try:
            lines = connection.makefile("r", encoding="utf-8")
            protocol = connection.makefile("w", encoding="utf-8")
            _converse(lines, protocol, warmed, here.clock, here.began, here)
        except (OSError, ValueError):
            pass  # the session went away
        finally:
            here.clock.connect(-1)


def _greeted(connection: socket.socket, first: dict[str, Any], here: _Kept) -> bool:
    """Answer a connection's first line; whether a session of this process's stamp follows."""
    if first.get("status") is True:
        answer: dict[str, Any] = here.status()
    elif first.get("stop") is True:
        with contextlib.suppress(OSError):
            connection.sendall(json.dumps({"stopped": os.getpid()}).encode() + b"\n")
        os._exit(0)
    elif not isinstance(first.get("hello"), str):
        return False  # said nothing a session says (a probe of the socket): nothing changes
    elif first["hello"] == here.stamp and not here.retiring:
        answer = {"welcome": True}
        if isinstance(first.get("project"), str) and first["project"]:
            here.projects.add(first["project"])
    else:  # another code or environment: the session starts its own process under the name
        here.retire()
        answer = {"retired": True}
    with contextlib.suppress(OSError):
        connection.sendall(json.dumps(answer).encode() + b"\n")
    return answer.get("welcome") is True


def _converse(
    lines: Iterable[str],
    protocol: IO[str],
    warmed: threading.Event,
    clock: _Idle,
    began: float,
    here: _Kept | None = None,
) -> None:
    """Answer each request line in a thread of its own; say "ready" once litellm is warm."""
    lock = threading.Lock()

    def ready() -> None:
        warmed.wait()
        _write(protocol, lock, {"ready": round(time.monotonic() - began, 3) or 0.001})

    threading.Thread(target=ready, daemon=True).start()
    for line in lines:
        clock.busy(+1)
        arguments = (line, protocol, lock, clock, here)
        threading.Thread(target=_answer, args=arguments, daemon=True).start()


class _Idle:
    """Ends the process once no request has been in flight for ``limit`` seconds, or for
    ``keep`` seconds when no session is connected (the kept process; a pipe is one session)."""

    def __init__(self, limit: float, keep: float, connections: int = 1) -> None:
        self.limit = limit
        self.keep = keep
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)  # wakes the watch: it may leave now
        self.flying = 0
        self.connections = connections
        self.since = time.monotonic()

    def busy(self, change: int) -> None:
        with self.lock:
            self.flying += change
            self.since = time.monotonic()

    def connect(self, change: int) -> None:
        with self.lock:
            self.connections += change
            self.since = time.monotonic()
            self.changed.notify()

    def retire(self) -> None:
        """Keep no longer: leave as soon as no session is connected (a retired process that
        slept on would go on importing litellm for nobody, on the user's cores)."""
        with self.lock:
            self.keep = 0.0
            self.changed.notify()

    def watch(self) -> None:
        with self.lock:
            while True:
                limit = self.limit if self.connections else self.keep
                left = limit - (time.monotonic() - self.since)
                if self.flying:
                    left = limit  # an answer comes first, then the wait starts again
                elif left <= 0:
                    os._exit(0)  # the other side sees its output close: the next call starts anew
                self.changed.wait(max(min(left, 5.0), 0.01))


def _answer(
    line: str, protocol: IO[str], lock: threading.Lock, clock: _Idle, here: _Kept | None
) -> None:
    try:
        _reply(line, protocol, lock)
    finally:
        clock.busy(-1)
        if here is not None and _memory() > kept.MEMORY_CAP:
            here.retire()  # grown too big to keep: the next session starts a fresh one


def _reply(line: str, protocol: IO[str], lock: threading.Lock) -> None:
    try:
        request = json.loads(line)
        number, op, arguments = request["id"], request["op"], request["args"]
    except (ValueError, KeyError, TypeError):
        return
    answer: dict[str, Any] = {"id": number}
    try:
        if op == "ask":
            answer["reply"] = dataclasses.asdict(client.ask_here(**arguments))
        elif op == "info":
            answer["info"] = dataclasses.asdict(capabilities.litellm_info(**arguments))
        else:
            answer["error"] = f"caretaker's model process knows no request {op!r}"
    except client.ModelError as error:
        answer["error"] = str(error)
    except Exception as error:  # any other fault is still one answer, never a lost request
        answer["error"] = client.one_line(error)
    _write(protocol, lock, answer)


def _write(protocol: IO[str], lock: threading.Lock, message: dict[str, Any]) -> None:
    with lock, contextlib.suppress(OSError, ValueError):  # a session gone: nobody to tell
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()
