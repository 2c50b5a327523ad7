"""Models: which ones this machine can use, which one caretaker picks, and what each can do."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from helpers import models_table

from pytest_caretaker.llm import models
from pytest_caretaker.llm.models import (
    OLLAMA_DEFAULT,
    PROVIDERS,
    Info,
    Provider,
    api_base_for,
    choose,
    info,
    is_code_model,
    keyed,
    listing,
    ollama_address,
    ollama_models,
    openai_models,
    server_root,
)
from pytest_caretaker.settings import BUILTIN, Settings, Sources, resolve
from pytest_caretaker.testing import ScriptedServer

#: Nothing listens on the discard port (as in conftest): a server that does not answer.
DEAD = "127.0.0.1:9"
NO_OLLAMA = {"OLLAMA_HOST": DEAD}
PROVIDER = {provider.name: provider for provider in PROVIDERS}


@pytest.fixture(autouse=True)
def _fresh_info(monkeypatch: pytest.MonkeyPatch) -> None:
    """info() remembers per (model, api_base); a port reused by a later test's server must not
    answer from an earlier test's memory."""
    monkeypatch.setattr(models, "_INFO", {})


@pytest.fixture
def serve() -> Iterator[Any]:
    """Start ScriptedServers (Ollama's and the OpenAI-compatible API) and stop them afterwards."""
    started: list[ScriptedServer] = []

    def start(**options: Any) -> ScriptedServer:
        server = ScriptedServer(**options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


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


def heal_settings(**cli: object) -> Settings:
    return resolve(Sources(cli={"heal": True, **cli}, env={}, ini={}))


# -- keyed ---------------------------------------------------------------------------------------


def test_keyed_finds_nothing_in_an_empty_environment() -> None:
    assert keyed({}) == []
    assert keyed({"UNRELATED": "x", "OLLAMA_HOST": "somewhere"}) == []


def test_keyed_follows_the_order_of_providers_not_of_the_environment() -> None:
    env = {"GROQ_API_KEY": "g", "MISTRAL_API_KEY": "m", "ANTHROPIC_API_KEY": "a"}
    found = keyed(env)
    assert [(provider.name, variable) for provider, variable in found] == [
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("mistral", "MISTRAL_API_KEY"),
        ("groq", "GROQ_API_KEY"),
    ]
    assert found[0][0] is PROVIDER["anthropic"]


def test_keyed_finds_every_provider_in_order() -> None:
    env = {provider.keys[-1]: "k" for provider in reversed(PROVIDERS)}
    found = keyed(env)
    assert [provider for provider, _ in found] == list(PROVIDERS)
    assert [variable for _, variable in found] == [provider.keys[-1] for provider in PROVIDERS]


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        pytest.param({"GEMINI_API_KEY": "a", "GOOGLE_API_KEY": "b"}, "GEMINI_API_KEY", id="both"),
        pytest.param({"GOOGLE_API_KEY": "b", "GEMINI_API_KEY": "a"}, "GEMINI_API_KEY", id="order"),
        pytest.param({"GOOGLE_API_KEY": "b"}, "GOOGLE_API_KEY", id="google-only"),
        pytest.param({"GEMINI_API_KEY": " ", "GOOGLE_API_KEY": "b"}, "GOOGLE_API_KEY", id="blank"),
    ],
)
def test_keyed_reports_the_first_key_variable_of_a_provider(
    env: dict[str, str], variable: str
) -> None:
    assert keyed(env) == [(PROVIDER["gemini"], variable)]


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_keyed_ignores_blank_values(blank: str) -> None:
    env = {"ANTHROPIC_API_KEY": blank, "OPENAI_API_KEY": blank, "DEEPSEEK_API_KEY": "d"}
    assert keyed(env) == [(PROVIDER["deepseek"], "DEEPSEEK_API_KEY")]


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


@pytest.mark.parametrize(
    "model", ["ollama_chat/qwen2.5-coder:7b", "ollama/llama3.2", "openai/gpt-4.1", BUILTIN]
)
def test_api_base_for_prefers_the_given_api_base(model: str) -> None:
    env = {"OLLAMA_HOST": "elsewhere:1"}
    assert api_base_for(model, "http://10.1.1.1:8000/v1", env) == "http://10.1.1.1:8000/v1"


@pytest.mark.parametrize("model", ["ollama_chat/qwen2.5-coder:7b", "ollama/llama3.2"])
def test_api_base_for_an_ollama_model_is_the_local_ollama(model: str) -> None:
    assert api_base_for(model, None, {"OLLAMA_HOST": "gpu-box:7000"}) == "http://gpu-box:7000"
    assert api_base_for(model, None, {}) == OLLAMA_DEFAULT


@pytest.mark.parametrize("model", ["openai/gpt-4.1", "anthropic/claude-sonnet-4-5", "llama"])
def test_api_base_for_a_provider_model_is_the_providers_own(model: str) -> None:
    assert api_base_for(model, None, {"OLLAMA_HOST": "gpu-box:7000"}) is None


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("qwen2.5-coder:7b", True),
        ("codellama:13b", True),
        ("deepseek-coder-v2:16b", True),
        ("devstral:24b", True),
        ("codestral:22b", True),
        ("CodeGemma:7b", True),
        ("starcoder2:3b", True),
        ("llama3.2:3b", False),
        ("mistral:7b", False),
        ("phi3:mini", False),
        ("gemma2:9b", False),
    ],
)
def test_is_code_model(name: str, code: bool) -> None:
    assert is_code_model(name) is code


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


# -- choose --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cli", "env", "ini", "source"),
    [
        pytest.param({"models": ["openai/gpt-4.1-mini"]}, {}, {}, "--heal-model", id="cli"),
        pytest.param(
            {}, {"CARETAKER_MODEL": "openai/gpt-4.1-mini"}, {}, "CARETAKER_MODEL", id="env"
        ),
        pytest.param(
            {}, {}, {"models": ["openai/gpt-4.1-mini"]}, "ini option heal_model", id="ini"
        ),
    ],
)
def test_a_configured_chain_is_kept_and_its_source_is_the_reason(
    serve: Any, cli: dict[str, object], env: dict[str, str], ini: dict[str, object], source: str
) -> None:
    # A provider key and a local Ollama with a code model: neither overrides the configuration.
    server = serve(models=("qwen2.5-coder:7b",))
    environment = {**env, "ANTHROPIC_API_KEY": "a", "OLLAMA_HOST": server.host}
    settings = resolve(Sources(cli={"heal": True, **cli}, env=environment, ini=ini))
    chosen = choose(settings, environment)
    assert chosen.models == ("openai/gpt-4.1-mini",)
    assert chosen.reason == source
    assert chosen.api_base is None
    assert server.paths == []  # nothing probed


def test_a_configured_chain_is_kept_directly_built() -> None:
    settings = Settings(
        heal=True, sources={"models": "--heal-model"}, models=("ollama_chat/x", BUILTIN)
    )
    chosen = choose(settings, {"OPENAI_API_KEY": "o", **NO_OLLAMA})
    assert chosen.models == ("ollama_chat/x", BUILTIN)
    assert chosen.reason == "--heal-model"


def test_the_first_provider_with_a_key_is_chosen(serve: Any) -> None:
    server = serve(models=("qwen2.5-coder:7b",))
    env = {"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a", "OLLAMA_HOST": server.host}
    chosen = choose(heal_settings(), env)
    assert chosen.models == (PROVIDER["anthropic"].model,)
    assert chosen.reason == "ANTHROPIC_API_KEY is set"
    assert chosen.api_base is None
    assert server.paths == []  # a key is enough: no local server is asked


def test_a_google_key_chooses_gemini() -> None:
    env = {"GOOGLE_API_KEY": "g", "DEEPSEEK_API_KEY": "d", **NO_OLLAMA}
    chosen = choose(heal_settings(), env)
    assert chosen.models == (PROVIDER["gemini"].model,)
    assert chosen.reason == "GOOGLE_API_KEY is set"


def test_without_a_key_a_code_model_of_a_local_ollama_is_chosen(serve: Any) -> None:
    server = serve(models=("llama3.2:3b", "qwen2.5-coder:7b"))
    chosen = choose(heal_settings(), {"OLLAMA_HOST": server.host})
    assert chosen.models == ("ollama_chat/qwen2.5-coder:7b",)
    assert chosen.api_base == server.root_url
    assert "Ollama" in chosen.reason
    assert server.root_url in chosen.reason
    assert server.paths == ["/api/tags"]


def test_a_local_ollama_without_a_code_model_leaves_builtin_and_says_so(serve: Any) -> None:
    server = serve(models=("llama3.2:3b", "mistral:7b"))
    chosen = choose(heal_settings(), {"OLLAMA_HOST": server.host})
    assert chosen.models == (BUILTIN,)
    assert chosen.api_base is None
    assert "no code model" in chosen.reason
    assert "ollama_chat/llama3.2:3b" in chosen.reason


def test_a_local_ollama_serving_nothing_leaves_builtin(serve: Any) -> None:
    server = serve(models=())
    chosen = choose(heal_settings(), {"OLLAMA_HOST": server.host})
    assert chosen.models == (BUILTIN,)
    assert "no model configured" in chosen.reason


def test_nothing_available_leaves_builtin() -> None:
    chosen = choose(heal_settings(), NO_OLLAMA)
    assert chosen.models == (BUILTIN,)
    assert chosen.api_base is None
    assert "no model configured" in chosen.reason


@pytest.mark.parametrize(
    ("served", "expected"),
    [
        (("llama3.2:3b", "qwen2.5-coder:7b"), "openai/qwen2.5-coder:7b"),
        (("llama3.2:3b", "mistral:7b"), "openai/llama3.2:3b"),
    ],
)
def test_an_openai_api_base_chooses_a_model_it_serves(
    serve: Any, served: tuple[str, ...], expected: str
) -> None:
    server = serve(models=served)
    settings = heal_settings(api_base=server.base_url)
    assert settings.api_base == server.base_url
    # The given server wins over a provider key in the environment.
    chosen = choose(settings, {"ANTHROPIC_API_KEY": "a", **NO_OLLAMA})
    assert chosen.models == (expected,)
    assert chosen.api_base == server.base_url
    assert server.base_url in chosen.reason
    assert server.paths == ["/v1/models"]  # /v1 is OpenAI's protocol: Ollama's is not asked


@pytest.mark.parametrize(
    ("served", "expected"),
    [
        (("llama3.2:3b", "deepseek-coder-v2:16b"), "ollama_chat/deepseek-coder-v2:16b"),
        (("phi3:mini", "llama3.2:3b"), "ollama_chat/phi3:mini"),
    ],
)
def test_an_api_base_without_v1_is_asked_as_ollama(
    serve: Any, served: tuple[str, ...], expected: str
) -> None:
    server = serve(models=served)
    chosen = choose(heal_settings(api_base=server.root_url), NO_OLLAMA)
    assert chosen.models == (expected,)
    assert chosen.api_base == server.root_url
    assert "Ollama" in chosen.reason
    assert server.paths == ["/api/tags"]


@pytest.mark.parametrize("v1", [True, False], ids=["v1", "root"])
def test_an_api_base_that_lists_nothing_leaves_builtin(serve: Any, v1: bool) -> None:
    server = serve(models=())
    base = server.base_url if v1 else server.root_url
    chosen = choose(heal_settings(api_base=base), {"OPENAI_API_KEY": "o", **NO_OLLAMA})
    assert chosen.models == (BUILTIN,)
    assert base in chosen.reason
    assert "lists no models" in chosen.reason


def test_an_api_base_that_does_not_answer_leaves_builtin() -> None:
    chosen = choose(heal_settings(api_base=f"http://{DEAD}/v1"), NO_OLLAMA)
    assert chosen.models == (BUILTIN,)
    assert "lists no models" in chosen.reason


# -- PROVIDERS against litellm -------------------------------------------------------------------


def test_providers_are_distinct() -> None:
    assert len({p.name for p in PROVIDERS}) == len(PROVIDERS)
    keys = [key for provider in PROVIDERS for key in provider.keys]
    assert len(set(keys)) == len(keys)
    assert all(provider.model.startswith(provider.name + "/") for provider in PROVIDERS)


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_litellm_knows_each_providers_model_with_tool_calling(
    _litellm_loaded: None, provider: Provider
) -> None:
    import litellm

    data = litellm.get_model_info(provider.model)
    assert data["supports_function_calling"] is True
    assert litellm.supports_function_calling(model=provider.model) is True
    described = info(provider.model)
    assert described.tools is True
    assert described.context and described.context > 8_000
    assert described.input_price is not None and described.input_price > 0


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_litellm_reads_each_providers_key_variables(
    _litellm_loaded: None, monkeypatch: pytest.MonkeyPatch, provider: Provider
) -> None:
    import litellm

    missing = litellm.validate_environment(model=provider.model)
    assert missing["keys_in_environment"] is False
    assert set(provider.keys) <= set(missing["missing_keys"])
    for key in provider.keys:  # each of them, as keyed() accepts each
        with monkeypatch.context() as patch:
            patch.setenv(key, "test-key")
            found = litellm.validate_environment(model=provider.model)
            assert found["keys_in_environment"] is True, (key, found)
            assert found["missing_keys"] == []


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


# -- listing -------------------------------------------------------------------------------------


def _providers(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Providers with a key"))
    block = []
    for line in lines[start + 1 :]:
        if line.strip().startswith("(checked in this order"):
            break
        block.append(line.strip())
    return block


def test_listing_with_nothing_available() -> None:
    text = listing(heal_settings(), NO_OLLAMA)
    assert "no model configured; caretaker would use builtin" in text
    assert _providers(text) == ["none"]
    assert f"Ollama at http://{DEAD}: not answering" in text
    rows = models_table(text)
    assert list(rows) == [BUILTIN]
    assert rows[BUILTIN][:4] == ["no", "?", "free", "free"]
    assert "chosen" in rows[BUILTIN][4]
    for provider in PROVIDERS:  # the order in which keys are looked for is shown
        assert provider.name in text


def test_listing_with_two_provider_keys(_litellm_loaded: None) -> None:
    import litellm

    env = {"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a", **NO_OLLAMA}
    text = listing(heal_settings(), env)
    anthropic, openai = PROVIDER["anthropic"], PROVIDER["openai"]
    assert f"caretaker would use {anthropic.model} (ANTHROPIC_API_KEY is set)" in text
    lines = _providers(text)
    assert len(lines) == 2
    assert lines[0].split() == ["anthropic", "ANTHROPIC_API_KEY", "→", anthropic.model]
    assert lines[1].split() == ["openai", "OPENAI_API_KEY", "→", openai.model]
    rows = models_table(text)
    assert list(rows) == [anthropic.model, openai.model, BUILTIN]
    for provider, variable in ((anthropic, "ANTHROPIC_API_KEY"), (openai, "OPENAI_API_KEY")):
        data: dict[str, Any] = dict(litellm.get_model_info(provider.model))
        tools, context, price_in, price_out, source = rows[provider.model]
        assert tools == "yes"
        assert context == f"{data['max_input_tokens']:,}"
        assert price_in == f"{data['input_cost_per_token'] * 1_000_000:.2f}"
        assert price_out == f"{data['output_cost_per_token'] * 1_000_000:.2f}"
        assert variable in source
    assert "chosen" in rows[anthropic.model][4]
    assert "chosen" not in rows[openai.model][4]
    assert rows[anthropic.model][1] == "200,000"


def test_listing_with_a_local_ollama(serve: Any) -> None:
    server = serve(
        models=("llama3.2:3b", "qwen2.5-coder:7b"),
        tool_models=("qwen2.5-coder:7b",),
        context_length=8192,
    )
    text = listing(heal_settings(), {"OLLAMA_HOST": server.host})
    assert "caretaker would use ollama_chat/qwen2.5-coder:7b" in text
    assert f"Ollama at {server.root_url}: 2 models" in text
    assert _providers(text) == ["none"]
    rows = models_table(text)
    assert list(rows) == ["ollama_chat/qwen2.5-coder:7b", "ollama_chat/llama3.2:3b", BUILTIN]
    assert rows["ollama_chat/qwen2.5-coder:7b"][:4] == ["yes", "8,192", "local", "local"]
    assert rows["ollama_chat/llama3.2:3b"][:4] == ["no", "8,192", "local", "local"]
    assert rows[BUILTIN][:4] == ["no", "?", "free", "free"]
    assert "chosen" in rows["ollama_chat/qwen2.5-coder:7b"][4]
    assert rows["ollama_chat/llama3.2:3b"][4] == f"Ollama at {server.root_url}"
    assert "chosen" not in rows[BUILTIN][4]


def test_listing_with_an_api_base_asks_both_protocols(_litellm_loaded: None, serve: Any) -> None:
    server = serve(models=("qwen2.5-coder:7b",), tool_models=("qwen2.5-coder:7b",))
    text = listing(heal_settings(api_base=server.base_url), NO_OLLAMA)
    assert f"caretaker would use openai/qwen2.5-coder:7b (served at {server.base_url})" in text
    assert f"Ollama at {server.root_url}: 1 model\n" in text
    assert f"OpenAI-compatible server at {server.base_url}: 1 model\n" in text
    rows = models_table(text)
    assert set(rows) == {"openai/qwen2.5-coder:7b", "ollama_chat/qwen2.5-coder:7b", BUILTIN}
    # litellm does not know it; the server is an Ollama, whose /api/show does.
    assert rows["openai/qwen2.5-coder:7b"][:4] == ["yes", "32,768", "local", "local"]
    assert rows["ollama_chat/qwen2.5-coder:7b"][:2] == ["yes", "32,768"]


def test_listing_of_a_configured_chain(_litellm_loaded: None) -> None:
    settings = heal_settings(models=["openai/gpt-4o-mini", BUILTIN])
    text = listing(settings, {"ANTHROPIC_API_KEY": "a", **NO_OLLAMA})
    assert "configured: openai/gpt-4o-mini → builtin (--heal-model)" in text
    rows = models_table(text)
    assert list(rows) == ["openai/gpt-4o-mini", BUILTIN, PROVIDER["anthropic"].model]
    assert rows["openai/gpt-4o-mini"][:2] == ["yes", "128,000"]
    assert "chosen" not in text.split("\n\nmodel ")[1]  # configured, not chosen
    assert rows[PROVIDER["anthropic"].model][-1] == "ANTHROPIC_API_KEY"
