"""The scripted server (pytest_caretaker.testing), as a client sees it over HTTP: the paths it
answers, the scripted replies in order, faults, and what it records."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_caretaker.testing import Scripted, ScriptedServer, fault, text, tool_call


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(
        models=("qwen2.5-coder:7b", "llama3.2:3b"),
        tool_models=("qwen2.5-coder:7b",),
        context_length=4096,
    ).start() as started:
        yield started


def call(url: str, body: bytes | dict[str, Any] | None = None) -> tuple[int, dict[str, str], Any]:
    """GET ``url``, or POST ``body`` to it: the status, the headers and the decoded JSON."""
    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            status, headers, raw = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, dict(error.headers), error.read()
    headers = {name.lower(): value for name, value in headers.items()}
    return status, headers, json.loads(raw) if raw.startswith((b"{", b"[")) else raw


def chat(server: ScriptedServer, model: str = "scripted") -> tuple[int, dict[str, str], Any]:
    return call(f"{server.base_url}/chat/completions", {"model": model, "messages": []})


def test_the_addresses(server: ScriptedServer) -> None:
    port = server.host.rsplit(":", 1)[1]
    assert server.host == f"127.0.0.1:{port}"
    assert server.root_url == f"http://127.0.0.1:{port}"
    assert server.base_url == f"http://127.0.0.1:{port}/v1"


def test_it_lists_its_models_both_ways(server: ScriptedServer) -> None:
    status, headers, data = call(f"{server.base_url}/models")
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert data == {
        "object": "list",
        "data": [
            {"id": "qwen2.5-coder:7b", "object": "model", "owned_by": "scripted"},
            {"id": "llama3.2:3b", "object": "model", "owned_by": "scripted"},
        ],
    }
    status, _, data = call(f"{server.root_url}/api/tags/")
    assert status == 200
    assert data == {
        "models": [
            {"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b"},
            {"name": "llama3.2:3b", "model": "llama3.2:3b"},
        ]
    }
    assert server.paths == ["/v1/models", "/api/tags/"]
    assert server.requests == []


def test_an_unknown_get_is_404(server: ScriptedServer) -> None:
    status, headers, data = call(f"{server.root_url}/elsewhere")
    assert (status, data) == (404, {"error": {"message": "not found"}})
    assert headers["content-type"] == "application/json"
    assert headers["content-length"] == "35"


@pytest.mark.parametrize("field", ["model", "name"])
def test_api_show_tells_capabilities_and_context(server: ScriptedServer, field: str) -> None:
    status, _, data = call(f"{server.root_url}/api/show", {field: "qwen2.5-coder:7b"})
    assert status == 200
    assert data == {
        "capabilities": ["completion", "tools"],
        "model_info": {"general.architecture": "scripted", "scripted.context_length": 4096},
    }
    assert call(f"{server.root_url}/api/show", {"model": "llama3.2:3b"})[2]["capabilities"] == [
        "completion"
    ]
    assert call(f"{server.root_url}/api/show", {"model": "missing"})[::2] == (
        404,
        {"error": "model 'missing' not found"},
    )
    assert server.requests == []  # asking about a model is not a chat request


def test_replies_come_in_order_and_requests_are_recorded(server: ScriptedServer) -> None:
    server.script(text("first"), tool_call("why", [{"path": "a.py"}]))
    status, _, first = chat(server, "openai/x")
    assert status == 200
    assert first["id"] == "chatcmpl-scripted-1"
    assert first["model"] == "openai/x"
    assert first["choices"] == [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "first"},
            "finish_reason": "stop",
        }
    ]
    assert first["usage"] == {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}
    second = chat(server)[2]
    call_ = second["choices"][0]["message"]["tool_calls"][0]
    assert call_["id"] == "call_2"
    assert json.loads(call_["function"]["arguments"]) == {
        "explanation": "why",
        "edits": [{"path": "a.py"}],
    }
    assert second["choices"][0]["finish_reason"] == "tool_calls"
    assert server.requests == [
        {"model": "openai/x", "messages": []},
        {"model": "scripted", "messages": []},
    ]
    assert server.paths == ["/v1/chat/completions"] * 2


def test_a_script_that_runs_out_answers_500(server: ScriptedServer) -> None:
    assert chat(server)[::2] == (500, {"error": {"message": "no scripted reply left"}})


def test_a_fault_is_sent_as_is_with_its_headers(server: ScriptedServer) -> None:
    server.script(fault(429, headers={"Retry-After": "3"}), text("", body=b"not json", status=200))
    status, headers, data = chat(server)
    assert (status, headers["retry-after"], data) == (
        429,
        "3",
        {"error": {"message": "scripted fault 429"}},
    )
    assert chat(server)[::2] == (200, b"not json")


def test_a_reply_may_be_delayed_and_cut_off(server: ScriptedServer) -> None:
    server.script(Scripted(text="partial", delay=0.2, finish_reason="length"))
    started = time.monotonic()
    data = chat(server)[2]
    assert time.monotonic() - started >= 0.2
    assert data["choices"][0]["finish_reason"] == "length"


def test_a_body_that_is_not_json_is_recorded_unparsed(server: ScriptedServer) -> None:
    server.script(text("ok"))
    assert call(f"{server.base_url}/chat/completions", b"{not json")[0] == 200
    assert server.requests == [{"unparsed": "{not json"}]


def test_a_responder_answers_every_request() -> None:
    seen: list[dict[str, Any]] = []

    def respond(body: dict[str, Any]) -> Scripted:
        seen.append(body)
        return text(f"to {body['model']}")

    with ScriptedServer([text("unused")], responder=respond).start() as server:
        assert chat(server, "a")[2]["choices"][0]["message"]["content"] == "to a"
        assert chat(server, "b")[2]["choices"][0]["message"]["content"] == "to b"
        assert server.replies == [text("unused")]
    assert [body["model"] for body in seen] == ["a", "b"]


def test_ollama_chat_answers_in_ollamas_format(server: ScriptedServer) -> None:
    server.script(tool_call("why", []), text("plain", prompt_tokens=3, completion_tokens=2))
    data = call(f"{server.root_url}/api/chat", {"model": "qwen2.5-coder:7b"})[2]
    assert data["message"]["tool_calls"] == [
        {"function": {"name": "propose_fix", "arguments": {"explanation": "why", "edits": []}}}
    ]
    assert data["model"] == "qwen2.5-coder:7b"
    assert data["done"] is True
    data = call(f"{server.root_url}/api/chat", {"model": "llama3.2:3b"})[2]
    assert data == {
        "model": "llama3.2:3b",
        "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "plain"},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 3,
        "eval_count": 2,
    }
