"""Models: which ones this machine can use, which one caretaker picks, and where to ask it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.llm import extra, remote
from pytest_caretaker.llm.capabilities import OLLAMA_DEFAULT
from pytest_caretaker.llm.models import (
    PROVIDERS,
    Provider,
    api_base_for,
    choose,
    info,
    is_code_model,
    keyed,
)
from pytest_caretaker.settings import (
    BUILTIN,
    DEFAULT_BUILTIN_BUDGET,
    DEFAULT_CHAIN_BUILTIN_BUDGET,
    RawValues,
    Settings,
    resolve,
)

#: Nothing listens on the discard port (as in conftest): a server that does not answer.
DEAD = "127.0.0.1:9"
NO_OLLAMA = {"OLLAMA_HOST": DEAD}
PROVIDER = {provider.name: provider for provider in PROVIDERS}


def heal_settings(**cli: object) -> Settings:
    return resolve(RawValues(cli={"heal": True, **cli}, env={}, ini={}))


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


# -- where to ask a model ------------------------------------------------------------------------


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
    settings = resolve(RawValues(cli={"heal": True, **cli}, env=environment, ini=ini))
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
    assert chosen.models == (BUILTIN, PROVIDER["anthropic"].model)
    assert chosen.reason == "ANTHROPIC_API_KEY is set"
    assert chosen.api_base is None
    assert server.paths == []  # a key is enough: no local server is asked


def test_a_model_found_follows_the_builtin_repairer_which_gets_a_short_budget() -> None:
    chosen = choose(heal_settings(), {"OPENAI_API_KEY": "o", **NO_OLLAMA})
    assert chosen.models == (BUILTIN, PROVIDER["openai"].model)
    assert chosen.builtin_budget == DEFAULT_CHAIN_BUILTIN_BUDGET < DEFAULT_BUILTIN_BUDGET
    # Its own budget, when configured, is the configured one.
    configured = heal_settings(builtin_budget=12.0)
    assert choose(configured, {"OPENAI_API_KEY": "o", **NO_OLLAMA}).builtin_budget == 12.0
    # With builtin alone, the budget is the usual one.
    assert choose(heal_settings(), NO_OLLAMA).builtin_budget == DEFAULT_BUILTIN_BUDGET


def test_without_litellm_anywhere_a_model_is_left_out_and_the_reason_says_what_to_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # In process litellm may be imported already; the e2e tests block the real import.
    monkeypatch.setattr(extra, "installed", lambda: False)
    nowhere = {"CARETAKER_MODEL_ENV": str(tmp_path / "none"), **NO_OLLAMA}
    chosen = choose(heal_settings(), {"OPENAI_API_KEY": "o", **nowhere})
    assert chosen.models == (BUILTIN,)
    assert chosen.builtin_budget == DEFAULT_BUILTIN_BUDGET
    run_setup = 'run `caretaker model setup` (or pip install "pytest-caretaker[llm]")'
    assert chosen.reason == f"OPENAI_API_KEY is set, but openai/gpt-4.1 needs litellm: {run_setup}"
    named = choose(heal_settings(models=["builtin", "openai/gpt-4o-mini"]), nowhere)
    assert named.models == (BUILTIN,)  # left out, never an error: builtin heals alone
    assert named.reason == (
        f"--heal-model openai/gpt-4o-mini needs litellm: {run_setup}; builtin heals alone"
    )
    assert choose(heal_settings(models=["builtin"]), nowhere).reason == "--heal-model"


def test_a_model_environment_set_up_is_where_models_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(extra, "installed", lambda: False)
    place = tmp_path / "models"
    env = {"OPENAI_API_KEY": "o", "CARETAKER_MODEL_ENV": str(place), **NO_OLLAMA}
    (place / "bin").mkdir(parents=True)
    (place / "bin" / "python").symlink_to(sys.executable)
    assert choose(heal_settings(), env).models == (BUILTIN,)  # no mark yet: not set up
    (place / "caretaker-models.json").write_text('{"litellm": "1.110.2", "python": "3.11.7"}')

    chosen = choose(heal_settings(), env)

    assert chosen.models == (BUILTIN, "openai/gpt-4.1")
    assert chosen.environment == "litellm 1.110.2, caretaker's environment"
    assert remote.interpreter(env) == str(place / "bin" / "python")
    (place / "bin" / "python").unlink()  # a mark without its interpreter: not set up
    assert choose(heal_settings(), env).models == (BUILTIN,)


def test_a_google_key_chooses_gemini() -> None:
    env = {"GOOGLE_API_KEY": "g", "DEEPSEEK_API_KEY": "d", **NO_OLLAMA}
    chosen = choose(heal_settings(), env)
    assert chosen.models == (BUILTIN, PROVIDER["gemini"].model)
    assert chosen.reason == "GOOGLE_API_KEY is set"


def test_without_a_key_a_code_model_of_a_local_ollama_is_chosen(serve: Any) -> None:
    server = serve(models=("llama3.2:3b", "qwen2.5-coder:7b"))
    chosen = choose(heal_settings(), {"OLLAMA_HOST": server.host})
    assert chosen.models == (BUILTIN, "ollama_chat/qwen2.5-coder:7b")
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
    assert chosen.models == (BUILTIN, expected)
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
    assert chosen.models == (BUILTIN, expected)
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


def test_the_kept_process_is_keyed_by_the_environment_models_run_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pytest_caretaker.llm import kept

    monkeypatch.setattr(extra, "installed", lambda: False)
    place = tmp_path / "models"
    (place / "bin").mkdir(parents=True)
    (place / "bin" / "python").symlink_to(sys.executable)
    (place / "caretaker-models.json").write_text('{"litellm": "1.110.2"}')
    env = {"CARETAKER_MODEL_ENV": str(place)}
    other = {"CARETAKER_MODEL_ENV": str(tmp_path / "elsewhere")}

    assert kept.address(env) != kept.address(other)  # another interpreter: another process
    before = kept.stamp(env)
    (place / "caretaker-models.json").write_text('{"litellm": "1.110.3"}')  # setup ran again
    assert kept.stamp(env) != before  # the kept one retires for the new one


def test_a_call_in_this_process_without_litellm_is_a_model_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_caretaker.llm import client

    monkeypatch.setitem(sys.modules, "litellm", None)  # import litellm raises ImportError

    with pytest.raises(client.ModelError, match=r"model process did not answer \(litellm is not"):
        client.litellm()
