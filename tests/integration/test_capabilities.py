"""Capabilities: what the servers on hand list and what each model can do."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from pytest_caretaker.llm import capabilities, models
from pytest_caretaker.llm.capabilities import (
    OLLAMA_DEFAULT,
    Info,
    info,
    ollama_address,
    ollama_models,
    openai_models,
    server_root,
)
from pytest_caretaker.settings import BUILTIN
from pytest_caretaker.testing import ScriptedServer

#: Nothing listens on the discard port (as in conftest): a server that does not answer.
DEAD = "127.0.0.1:9"


class _Fixed(ThreadingHTTPServer):
    """A server that answers every request with one fixed status and body (not a model server)."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture
def fixed() -> Iterator[Any]:
    started: list[tuple[_Fixed, threading.Thread]] = []

    def start(status: int, body: bytes, content_type: str = "application/json") -> str:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        httpd = _Fixed(("127.0.0.1", 0), Handler)
        thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        thread.start()
        started.append((httpd, thread))
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    yield start
    for httpd, thread in started:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


# -- addresses -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        pytest.param(None, OLLAMA_DEFAULT, id="unset"),
        pytest.param("", OLLAMA_DEFAULT, id="empty"),
        pytest.param("   ", OLLAMA_DEFAULT, id="blank"),
        pytest.param("10.0.0.5:8080", "http://10.0.0.5:8080", id="host-port"),
        pytest.param("ollama.lan", "http://ollama.lan:11434", id="bare-host"),
        pytest.param(" ollama.lan ", "http://ollama.lan:11434", id="bare-host-spaces"),
        pytest.param("http://ollama.lan:9999", "http://ollama.lan:9999", id="url"),
        pytest.param("https://ollama.lan:443", "https://ollama.lan:443", id="https-url"),
        pytest.param("http://ollama.lan", "http://ollama.lan:11434", id="url-without-port"),
        pytest.param("http://ollama.lan:9999/", "http://ollama.lan:9999", id="trailing-slash"),
        pytest.param("ollama.lan:9999/", "http://ollama.lan:9999", id="host-port-slash"),
        pytest.param("[::1]:5000", "http://[::1]:5000", id="ipv6-with-port"),
        pytest.param(
            "http://ollama.lan/",
            "http://ollama.lan:11434",
            id="url-without-port-trailing-slash",
        ),
        pytest.param(
            "ollama.lan/",
            "http://ollama.lan:11434",
            id="bare-host-trailing-slash",
        ),
        pytest.param(
            "[::1]",
            "http://[::1]:11434",
            id="bare-ipv6-host",
        ),
    ],
)
def test_ollama_address(host: str | None, expected: str) -> None:
    env = {} if host is None else {"OLLAMA_HOST": host}
    assert ollama_address(env) == expected


@pytest.mark.parametrize(
    ("api_base", "expected"),
    [
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434"),
        ("http://127.0.0.1:11434/v1/", "http://127.0.0.1:11434"),
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("http://127.0.0.1:11434/", "http://127.0.0.1:11434"),
        ("https://proxy.example/api/v1", "https://proxy.example/api"),
        ("https://proxy.example/v1beta", "https://proxy.example/v1beta"),
    ],
)
def test_server_root_removes_an_openai_v1_suffix(api_base: str, expected: str) -> None:
    assert server_root(api_base) == expected


# -- listing a server's models -------------------------------------------------------------------


def test_ollama_models_lists_what_the_server_serves(serve: Any) -> None:
    server = serve(models=("llama3.2:3b", "qwen2.5-coder:7b"))
    assert ollama_models(server.root_url) == ("llama3.2:3b", "qwen2.5-coder:7b")
    assert ollama_models(server.root_url + "/") == ("llama3.2:3b", "qwen2.5-coder:7b")
    assert server.paths == ["/api/tags", "/api/tags"]


def test_openai_models_lists_what_the_server_serves(serve: Any) -> None:
    server = serve(models=("gpt-local", "qwen2.5-coder"))
    assert openai_models(server.base_url) == ("gpt-local", "qwen2.5-coder")
    assert openai_models(server.base_url + "/") == ("gpt-local", "qwen2.5-coder")
    assert server.paths == ["/v1/models", "/v1/models"]


def test_a_server_serving_no_model_answers_with_an_empty_list(serve: Any) -> None:
    server = serve(models=())
    assert ollama_models(server.root_url) == ()
    assert openai_models(server.base_url) == ()


def test_nothing_listening_is_none() -> None:
    assert ollama_models(f"http://{DEAD}") is None
    assert openai_models(f"http://{DEAD}/v1") is None


@pytest.mark.parametrize(
    ("status", "body"),
    [
        pytest.param(404, b'{"error": "not found"}', id="404"),
        pytest.param(200, b"<html><body>a web page</body></html>", id="not-json"),
        pytest.param(200, b'{"models": "none", "data": {"id": "x"}}', id="json-of-another-shape"),
        pytest.param(200, b"[1, 2, 3]", id="json-list"),
    ],
)
def test_a_server_that_is_not_a_model_server_is_none(fixed: Any, status: int, body: bytes) -> None:
    root = fixed(status, body)
    assert ollama_models(root) is None
    assert openai_models(root + "/v1") is None


# -- info ----------------------------------------------------------------------------------------


@pytest.fixture
def ollama(serve: Any) -> ScriptedServer:
    server: ScriptedServer = serve(
        models=("qwen2.5-coder:7b", "llama3.2:3b"),
        tool_models=("qwen2.5-coder:7b",),
        context_length=8192,
    )
    return server


@pytest.mark.parametrize("prefix", ["ollama_chat/", "ollama/"])
def test_info_of_an_ollama_model_comes_from_api_show(ollama: ScriptedServer, prefix: str) -> None:
    assert info(f"{prefix}qwen2.5-coder:7b", ollama.root_url) == Info(
        tools=True, context=8192, local=True
    )
    assert info(f"{prefix}llama3.2:3b", ollama.root_url) == Info(
        tools=False, context=8192, local=True
    )
    assert ollama.requests == []  # asking what a model can do is not a chat request
    assert ollama.paths == ["/api/show", "/api/show"]


def test_info_of_an_ollama_model_at_a_v1_api_base_asks_the_servers_root(
    ollama: ScriptedServer,
) -> None:
    assert info("ollama_chat/qwen2.5-coder:7b", ollama.base_url).tools is True
    assert ollama.paths == ["/api/show"]


def test_info_of_an_ollama_model_without_api_base_asks_ollama_host(
    ollama: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama.host)
    assert info("ollama_chat/qwen2.5-coder:7b") == Info(tools=True, context=8192, local=True)
    assert ollama.paths == ["/api/show"]


def test_info_of_a_model_the_server_does_not_serve_is_unknown(ollama: ScriptedServer) -> None:
    described = info("ollama_chat/not-pulled:1b", ollama.root_url)
    assert described.tools is None
    assert described.context is None
    assert described.local is True


def test_info_of_an_ollama_model_without_a_server_is_unknown() -> None:
    assert info("ollama_chat/qwen2.5-coder:7b", f"http://{DEAD}") == Info(local=True)


def test_info_is_remembered_per_model_and_api_base(ollama: ScriptedServer) -> None:
    first = info("ollama_chat/qwen2.5-coder:7b", ollama.root_url)
    again = info("ollama_chat/qwen2.5-coder:7b", ollama.root_url)
    assert again == first
    assert ollama.paths == ["/api/show"]
    info("ollama_chat/llama3.2:3b", ollama.root_url)
    info("ollama_chat/qwen2.5-coder:7b", ollama.base_url)  # another api_base: asked again
    assert ollama.paths == ["/api/show"] * 3


def test_info_of_a_provider_model_comes_from_litellm(_litellm_loaded: None) -> None:
    import litellm

    data: dict[str, Any] = dict(litellm.get_model_info("openai/gpt-4o-mini"))
    described = info("openai/gpt-4o-mini")
    assert described.tools is True
    assert described.context == 128_000
    assert described.local is False
    assert described.input_price is not None and described.input_price > 0
    assert described.output_price is not None and described.output_price > 0
    assert described.input_price == pytest.approx(data["input_cost_per_token"] * 1_000_000)
    assert described.output_price == pytest.approx(data["output_cost_per_token"] * 1_000_000)
    assert described.output_price > described.input_price


@pytest.mark.parametrize(
    "api_base", ["http://127.0.0.1:8000/v1", "http://localhost:8000/v1", "http://127.1.2.3:1"]
)
def test_info_of_a_locally_served_model_has_no_price(_litellm_loaded: None, api_base: str) -> None:
    described = info("openai/gpt-4o-mini", api_base)
    assert described.local is True
    assert described.input_price is None
    assert described.output_price is None
    assert described.tools is True  # still litellm's knowledge of the model
    assert described.context == 128_000


def test_info_of_a_model_at_a_remote_api_base_keeps_its_price(_litellm_loaded: None) -> None:
    described = info("openai/gpt-4o-mini", "https://proxy.example.com/v1")
    assert described.local is False
    assert described.input_price is not None and described.input_price > 0


def test_info_of_a_model_litellm_does_not_know_is_unknown(_litellm_loaded: None) -> None:
    assert info("openai/no-such-model-anywhere") == Info()
    assert info("openai/no-such-model-anywhere", f"http://{DEAD}/v1") == Info(local=True)


def test_info_of_an_unknown_model_on_a_local_ollamas_openai_api_asks_ollama(
    _litellm_loaded: None, serve: Any
) -> None:
    server = serve(models=("qwen2.5-coder:7b",), tool_models=("qwen2.5-coder:7b",))
    assert info("openai/qwen2.5-coder:7b", server.base_url) == Info(
        tools=True, context=32_768, local=True
    )
    assert info("openai/not-served", server.base_url) == Info(local=True)  # /api/show: 404


def test_info_of_builtin() -> None:
    described = info(BUILTIN)
    assert described.tools is False
    assert described.local is True
    assert described.input_price is None


def test_the_memory_cleared_through_models_is_infos_own() -> None:
    # tests/conftest.py forgets what was learnt of models through models._INFO.
    assert models._INFO is capabilities._INFO
    assert models.info is info
    assert models.Info is Info
