"""Listing: what ``pytest --heal-models`` prints, for each set of models on hand."""

from __future__ import annotations

from typing import Any

from helpers import models_table

from pytest_caretaker.llm.listing import text as listing
from pytest_caretaker.llm.models import PROVIDERS
from pytest_caretaker.settings import BUILTIN, RawValues, Settings, resolve

#: Nothing listens on the discard port (as in conftest): a server that does not answer.
DEAD = "127.0.0.1:9"
NO_OLLAMA = {"OLLAMA_HOST": DEAD}
PROVIDER = {provider.name: provider for provider in PROVIDERS}


def heal_settings(**cli: object) -> Settings:
    return resolve(RawValues(cli={"heal": True, **cli}, env={}, ini={}))


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
    assert f"caretaker would use builtin → {anthropic.model} (ANTHROPIC_API_KEY is set)" in text
    lines = _providers(text)
    assert len(lines) == 2
    assert lines[0].split() == ["anthropic", "ANTHROPIC_API_KEY", "→", anthropic.model]
    assert lines[1].split() == ["openai", "OPENAI_API_KEY", "→", openai.model]
    rows = models_table(text)
    assert list(rows) == [BUILTIN, anthropic.model, openai.model]  # the chain first
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
    assert "caretaker would use builtin → ollama_chat/qwen2.5-coder:7b" in text
    assert f"Ollama at {server.root_url}: 2 models" in text
    assert _providers(text) == ["none"]
    rows = models_table(text)
    assert list(rows) == [BUILTIN, "ollama_chat/qwen2.5-coder:7b", "ollama_chat/llama3.2:3b"]
    assert rows["ollama_chat/qwen2.5-coder:7b"][:4] == ["yes", "8,192", "local", "local"]
    assert rows["ollama_chat/llama3.2:3b"][:4] == ["no", "8,192", "local", "local"]
    assert rows[BUILTIN][:4] == ["no", "?", "free", "free"]
    assert "chosen" in rows["ollama_chat/qwen2.5-coder:7b"][4]
    assert rows["ollama_chat/llama3.2:3b"][4] == f"Ollama at {server.root_url}"
    assert "chosen" in rows[BUILTIN][4]


def test_listing_with_an_api_base_asks_both_protocols(_litellm_loaded: None, serve: Any) -> None:
    server = serve(models=("qwen2.5-coder:7b",), tool_models=("qwen2.5-coder:7b",))
    text = listing(heal_settings(api_base=server.base_url), NO_OLLAMA)
    assert f"would use builtin → openai/qwen2.5-coder:7b (served at {server.base_url})" in text
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
