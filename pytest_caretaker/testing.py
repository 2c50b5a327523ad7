"""A scripted OpenAI-compatible server on 127.0.0.1, for tests and benchmarks (no network, no key).

It replays scripted replies to ``POST /v1/chat/completions`` in order, records every request body,
and can delay or fail a reply. Point caretaker at it with
``--heal-model openai/<name> --heal-api-base <server.base_url>``.

It also speaks as much of Ollama as caretaker uses: ``GET /api/tags`` (the models it serves),
``POST /api/show`` (a model's capabilities and context length) and ``POST /api/chat`` (the same
scripted replies in Ollama's format), for ``--heal-model ollama_chat/<name> --heal-api-base
<server.root_url>`` and for finding a local Ollama (``OLLAMA_HOST=<server.host>``).

``busy`` makes a busy machine beside a run, for the tests and benchmarks of what load must not
change.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


@dataclass(frozen=True)
class Scripted:
    """One reply: text content, or a tool call (propose_fix, or show), or a fault."""

    text: str = ""
    tool_arguments: dict[str, Any] | str | None = None  # a dict is sent as JSON
    tool_name: str = "propose_fix"
    status: int = 200
    body: bytes | None = None  # sent as is, instead of a well-formed completion
    delay: float = 0.0
    prompt_tokens: int = 100
    completion_tokens: int = 50
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str | None = None  # e.g. "length" for a reply cut off at the output limit


def text(content: str, **options: Any) -> Scripted:
    return Scripted(text=content, **options)


def tool_call(explanation: str, edits: list[dict[str, str]], **options: Any) -> Scripted:
    return Scripted(tool_arguments={"explanation": explanation, "edits": edits}, **options)


def show_call(name: str, path: str | None = None, **options: Any) -> Scripted:
    """A call of the show tool: the model asks to see a definition or a file."""
    arguments = {"name": name, **({"path": path} if path is not None else {})}
    return Scripted(tool_arguments=arguments, tool_name="show", **options)


def fault(status: int = 500, body: bytes | None = None, **options: Any) -> Scripted:
    default = json.dumps({"error": {"message": f"scripted fault {status}"}}).encode()
    return Scripted(status=status, body=body if body is not None else default, **options)


def ollama_chat(reply: Scripted, model: str) -> dict[str, Any]:
    """A scripted reply as Ollama's ``/api/chat`` answers (no streaming)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_arguments is not None:
        arguments = reply.tool_arguments
        if isinstance(arguments, str):
            arguments = json.loads(arguments)
        message["tool_calls"] = [{"function": {"name": reply.tool_name, "arguments": arguments}}]
    return {
        "model": model,
        "created_at": "2026-01-01T00:00:00Z",
        "message": message,
        "done": True,
        "done_reason": reply.finish_reason or "stop",
        "prompt_eval_count": reply.prompt_tokens,
        "eval_count": reply.completion_tokens,
    }


def completion(reply: Scripted, model: str, number: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    finish = "stop"
    if reply.tool_arguments is not None:
        arguments = reply.tool_arguments
        message["tool_calls"] = [
            {
                "id": f"call_{number}",
                "type": "function",
                "function": {
                    "name": reply.tool_name,
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
        ]
        finish = "tool_calls"
    finish = reply.finish_reason or finish
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


@dataclass(frozen=True)
class _Answer:
    """What the server sends back to one request."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)  # beside Content-Type and -Length


class _Handler(BaseHTTPRequestHandler):
    """HTTP only: each request goes to ``scripted``, the ScriptedServer, which decides the answer;
    a subclass per server sets it (the server makes one handler per request)."""

    protocol_version = "HTTP/1.1"
    scripted: ClassVar[ScriptedServer]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.scripted.paths.append(self.path)
        self._send(self.scripted._get(self.path))

    def do_POST(self) -> None:
        self.scripted.paths.append(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        self._send(self.scripted._post(self.path, self.rfile.read(length)))

    def _send(self, answer: _Answer) -> None:
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer.body)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(answer.body)


class _Quiet(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (a timeout under test) is expected: no traceback on stderr."""


class ScriptedServer:
    """Serve scripted replies in order; when the script runs out, answer 500."""

    def __init__(
        self,
        replies: list[Scripted] | None = None,
        responder: Callable[[dict[str, Any]], Scripted] | None = None,
        models: tuple[str, ...] = ("scripted",),
        tool_models: tuple[str, ...] = (),
        context_length: int = 32_768,
    ) -> None:
        self.replies = list(replies or [])
        self.responder = responder
        self.models = models
        self.tool_models = tool_models  # what /api/show says supports tool calling
        self.context_length = context_length
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        self._httpd = _Quiet(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def root_url(self) -> str:
        """The server's root, where Ollama's API lives."""
        return f"http://{self.host}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API's base."""
        return f"{self.root_url}/v1"

    def script(self, *replies: Scripted) -> None:
        with self._lock:
            self.replies.extend(replies)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self, body: dict[str, Any]) -> tuple[Scripted, int]:
        with self._lock:
            self.requests.append(body)
            number = len(self.requests)
            responder = self.responder
            if responder is None and self.replies:
                return self.replies.pop(0), number
        if responder is not None:  # outside the lock: concurrent requests reach it together
            return responder(body), number
        return fault(
            500, json.dumps({"error": {"message": "no scripted reply left"}}).encode()
        ), number

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(_Handler):
            scripted = server

        return Handler

    def _get(self, path: str) -> _Answer:
        """The models it serves, as an OpenAI-compatible server and as Ollama lists them."""
        if path.rstrip("/").endswith("/models"):
            data = [{"id": name, "object": "model", "owned_by": "scripted"} for name in self.models]
            return _Answer(200, json.dumps({"object": "list", "data": data}).encode())
        if path.rstrip("/").endswith("/api/tags"):
            tags = [{"name": name, "model": name} for name in self.models]
            return _Answer(200, json.dumps({"models": tags}).encode())
        return _Answer(404, b'{"error": {"message": "not found"}}')

    def _post(self, path: str, raw: bytes) -> _Answer:
        """Ollama's /api/show, or the next scripted reply in the format the path asks for."""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        if path.rstrip("/").endswith("/api/show"):
            return self._show(str(body.get("model") or body.get("name") or ""))
        reply, number = self._next(body)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.body is not None:
            return _Answer(reply.status, reply.body, reply.headers)
        model = str(body.get("model", "scripted"))
        if path.rstrip("/").endswith("/api/chat"):
            data = ollama_chat(reply, model)
        else:
            data = completion(reply, model, number)
        return _Answer(reply.status, json.dumps(data).encode(), reply.headers)

    def _show(self, name: str) -> _Answer:
        """Ollama's ``/api/show``: a served model's capabilities and context length."""
        if name not in self.models:
            return _Answer(404, json.dumps({"error": f"model '{name}' not found"}).encode())
        capabilities = ["completion"] + (["tools"] if name in self.tool_models else [])
        info = {"general.architecture": "scripted", "scripted.context_length": self.context_length}
        data = {"capabilities": capabilities, "model_info": info}
        return _Answer(200, json.dumps(data).encode())


@contextmanager
def busy(processes: int = 2) -> Iterator[None]:
    """processes spinning on the CPU beside the run, ended when the block ends."""
    spinning = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)
    ]
    try:
        yield
    finally:
        for process in spinning:
            process.kill()
            process.wait()
