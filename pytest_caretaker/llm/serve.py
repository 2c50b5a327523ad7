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
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

from pytest_caretaker.llm import capabilities, client, warmup


def main(idle: float, models: Sequence[str]) -> None:
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # litellm's own prints, if any, are not answers
    sys.stdout = sys.stderr
    lock = threading.Lock()
    began = time.monotonic()
    clock = _Idle(idle)

    def warm() -> None:
        warmup.warm(models)
        # Imported with the collector off (remote.py): what the import made lives as long as
        # the process, so it is moved out of the collector's sight before it runs again.
        gc.freeze()
        gc.enable()
        _write(protocol, lock, {"ready": round(time.monotonic() - began, 3) or 0.001})

    threading.Thread(target=warm, daemon=True).start()
    threading.Thread(target=clock.watch, daemon=True).start()
    for line in sys.stdin:
        clock.busy(+1)
        threading.Thread(target=_answer, args=(line, protocol, lock, clock), daemon=True).start()
    protocol.flush()
    os._exit(0)


class _Idle:
    """Ends the process once no request has been in flight for ``limit`` seconds."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.lock = threading.Lock()
        self.flying = 0
        self.since = time.monotonic()

    def busy(self, change: int) -> None:
        with self.lock:
            self.flying += change
            self.since = time.monotonic()

    def watch(self) -> None:
        while True:
            with self.lock:
                left = self.limit - (time.monotonic() - self.since)
                if self.flying:
                    left = self.limit  # an answer comes first, then the wait starts again
                elif left <= 0:
                    os._exit(0)  # the other side sees its output close: the next call starts anew
            time.sleep(min(left, 5.0))


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
    with lock:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()
