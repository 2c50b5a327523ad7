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
socket, and leaves after ``idle`` seconds with no request, or its ``keep`` seconds with no
session connected.
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
    name, _, keep = listen.rpartition("@")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind("\0" + name)
    except OSError:
        os._exit(0)  # another one took the name first: the sessions talk to it
    listener.listen(64)
    clock = _Idle(idle, float(keep), connections=0)
    _start(models, began, warmed, clock)
    while True:
        connection, _ = listener.accept()
        arguments = (connection, warmed, clock, began)
        threading.Thread(target=_connection, args=arguments, daemon=True).start()


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


def _connection(
    connection: socket.socket, warmed: threading.Event, clock: _Idle, began: float
) -> None:
    """One session of the kept process: only its own user's, unsandboxed (kept.trusted)."""
    with connection:
        if not kept.trusted(connection):
            return
        clock.connect(+1)
        try:
            lines = connection.makefile("r", encoding="utf-8")
            _converse(lines, connection.makefile("w", encoding="utf-8"), warmed, clock, began)
        except (OSError, ValueError):
            pass  # the session went away
        finally:
            clock.connect(-1)


def _converse(
    lines: Iterable[str], protocol: IO[str], warmed: threading.Event, clock: _Idle, began: float
) -> None:
    """Answer each request line in a thread of its own; say "ready" once litellm is warm."""
    lock = threading.Lock()

    def ready() -> None:
        warmed.wait()
        _write(protocol, lock, {"ready": round(time.monotonic() - began, 3) or 0.001})

    threading.Thread(target=ready, daemon=True).start()
    for line in lines:
        clock.busy(+1)
        threading.Thread(target=_answer, args=(line, protocol, lock, clock), daemon=True).start()


class _Idle:
    """Ends the process once no request has been in flight for ``limit`` seconds, or for
    ``keep`` seconds when no session is connected (the kept process; a pipe is one session)."""

    def __init__(self, limit: float, keep: float, connections: int = 1) -> None:
        self.limit = limit
        self.keep = keep
        self.lock = threading.Lock()
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

    def watch(self) -> None:
        while True:
            with self.lock:
                limit = self.limit if self.connections else self.keep
                left = limit - (time.monotonic() - self.since)
                if self.flying:
                    left = limit  # an answer comes first, then the wait starts again
                elif left <= 0:
                    os._exit(0)  # the other side sees its output close: the next call starts anew
            time.sleep(max(min(left, 5.0), 0.01))


def _answer(line: str, protocol: IO[str], lock: threading.Lock, clock: _Idle) -> None:
    try:
        _reply(line, protocol, lock)
    finally:
        clock.busy(-1)


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
