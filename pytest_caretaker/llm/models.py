"""Models: which ones this machine can use, which one caretaker picks, and where to ask it.

Choosing is cheap and runs for every ``pytest --heal`` without a configured model: it reads the
environment and, only when no provider key is set, asks a local Ollama (short timeout) what it
serves. A model found so follows the built-in repairer, cheapest first (SPEC §8); a configured
chain is used as it is. What a model can do (``info``) is capabilities.py's, importable from here
too; the ``--heal-models`` table is listing.py's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pytest_caretaker.llm import extra
from pytest_caretaker.llm.capabilities import (
    _INFO,
    OLLAMA_PREFIXES,
    SERVER_TIMEOUT,
    Info,
    info,
    is_local,
    ollama_address,
    ollama_models,
    openai_models,
)
from pytest_caretaker.settings import BUILTIN, DEFAULT_CHAIN_BUILTIN_BUDGET, Settings

#: What callers find here: the choice, and capabilities.py's Info, info and its memory (_INFO,
#: which the tests clear), so that one module answers every question about models.
__all__ = [
    "PROVIDERS",
    "_INFO",
    "Info",
    "Provider",
    "api_base_for",
    "choose",
    "info",
    "is_code_model",
    "keyed",
    "local_models",
]


@dataclass(frozen=True)
class Provider:
    name: str
    keys: tuple[str, ...]  # environment variables, any one of which holds the key
    model: str  # the model caretaker uses with that key


#: The order in which a key in the environment picks a model (docs/pages/models.md). Each
#: model is known to the pinned litellm with tool calling; tests/integration/test_models.py checks
#: that, and that litellm reads the same key variables, so an upgrade that drops one fails there.
PROVIDERS: tuple[Provider, ...] = (
    Provider("anthropic", ("ANTHROPIC_API_KEY",), "anthropic/claude-sonnet-4-5"),
    Provider("openai", ("OPENAI_API_KEY",), "openai/gpt-4.1"),
    Provider("gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "gemini/gemini-2.5-pro"),
    Provider("mistral", ("MISTRAL_API_KEY",), "mistral/codestral-latest"),
    Provider("deepseek", ("DEEPSEEK_API_KEY",), "deepseek/deepseek-chat"),
    Provider("xai", ("XAI_API_KEY",), "xai/grok-code-fast-1"),
    Provider("groq", ("GROQ_API_KEY",), "groq/openai/gpt-oss-120b"),
)

#: Names of models trained for code, the ones worth choosing among a local server's models.
_CODE_MODEL = re.compile(r"cod(e|er|estral|ellama|egemma|egeex)|devstral|starcoder", re.I)


def is_code_model(name: str) -> bool:
    return bool(_CODE_MODEL.search(name))


def keyed(env: Mapping[str, str]) -> list[tuple[Provider, str]]:
    """The providers with a key in the environment, in order, each with the variable found."""
    found = []
    for provider in PROVIDERS:
        variable = next((k for k in provider.keys if env.get(k, "").strip()), None)
        if variable is not None:
            found.append((provider, variable))
    return found


def api_base_for(model: str, api_base: str | None, env: Mapping[str, str]) -> str | None:
    """Where to reach a model: --heal-api-base when given; for an Ollama model without one, the
    local Ollama (OLLAMA_HOST, as Ollama's own tools read it); else the provider's own API."""
    if api_base is not None:
        return api_base
    if model.startswith(OLLAMA_PREFIXES):
        return ollama_address(env)
    return None


def local_models(settings: Settings, env: Mapping[str, str]) -> frozenset[str]:
    """The chain's models served locally (capabilities.is_local): "local" where a cost would be."""
    return frozenset(
        model
        for model in settings.models
        if model != BUILTIN and is_local(model, api_base_for(model, settings.api_base, env))
    )


def _prefer_code(names: Sequence[str]) -> str | None:
    return next((n for n in names if is_code_model(n)), None)


def choose(settings: Settings, env: Mapping[str, str]) -> Settings:
    """Settings with the model chain decided and ``reason`` saying why, in the documented order:
    a configured chain (``--heal-model``, ``CARETAKER_MODEL``, ini), as it is; else the built-in
    repairer, with a short budget, then a model found: one served at ``--heal-api-base``, the
    first provider with a key, a code model of a local Ollama. With litellm in neither the test
    environment nor caretaker's model environment (extra.py), a model named or found is left
    out, the reason says what to run, and the built-in repairer heals alone. ``environment``
    names where the model process will run.
    """
    configured = settings.sources.get("models")
    if configured is not None:
        return _located(extra.skipped(replace(settings, reason=configured), env), env)
    found = _found(settings, env)
    if found.models == (BUILTIN,):
        return found
    if extra.where(env) is None:
        model = found.models[0]
        return replace(settings, reason=f"{found.reason}, but {extra.needs(model)}")
    budget = settings.builtin_budget
    if "builtin_budget" not in settings.sources:  # the model does what the first seconds do not
        budget = min(budget, DEFAULT_CHAIN_BUILTIN_BUDGET)
    chosen = replace(found, models=(BUILTIN, *found.models), builtin_budget=budget)
    return _located(chosen, env)


def _located(settings: Settings, env: Mapping[str, str]) -> Settings:
    """The settings with ``environment`` said, when the chain has a model."""
    located = extra.where(env) if any(m != BUILTIN for m in settings.models) else None
    return replace(settings, environment=located.describe()) if located else settings


def _found(settings: Settings, env: Mapping[str, str]) -> Settings:
    """Settings with the model found here, if any (else builtin, and the reason why none)."""
    if settings.api_base is not None:
        return _served_choice(settings)
    found = keyed(env)
    if found:
        provider, variable = found[0]
        return replace(settings, models=(provider.model,), reason=f"{variable} is set")
    root = ollama_address(env)
    served = ollama_models(root)
    if served:
        code = _prefer_code(served)
        if code is not None:
            return replace(
                settings,
                models=(f"ollama_chat/{code}",),
                api_base=root,
                reason=f"a code model served by Ollama at {root}",
            )
        return replace(
            settings,
            reason=f"Ollama at {root} serves no code model; --heal-model ollama_chat/"
            f"{served[0]} would use {served[0]}",
        )
    return replace(
        settings,
        reason="no model configured; no provider key, no local Ollama; "
        "--heal-model or CARETAKER_MODEL picks one",
    )


def _served_choice(settings: Settings) -> Settings:
    """A model served at the given --heal-api-base: its protocol follows the URL (``/v1`` is
    OpenAI-compatible), a code model first, else the first it lists."""
    base = settings.api_base or ""
    if not base.rstrip("/").endswith("/v1"):
        served = ollama_models(base, SERVER_TIMEOUT)
        if served:
            name = _prefer_code(served) or served[0]
            return replace(
                settings, models=(f"ollama_chat/{name}",), reason=f"served by Ollama at {base}"
            )
    listed = openai_models(base, SERVER_TIMEOUT)
    if listed:
        name = _prefer_code(listed) or listed[0]
        return replace(settings, models=(f"openai/{name}",), reason=f"served at {base}")
    return replace(
        settings,
        reason=f"no model configured and {base} lists no models; --heal-model picks one",
    )
