"""Models: which ones this machine can use, which one caretaker picks, and what each can do.

Choosing is cheap and runs for every ``pytest --heal`` without a configured model: it reads the
environment and, only when no provider key is set, asks a local Ollama (short timeout) what it
serves. litellm, which knows capabilities and prices, is imported only to describe models:
``--heal-models``, and the model a repair is about to ask.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pytest_caretaker.settings import BUILTIN, Settings


@dataclass(frozen=True)
class Provider:
    name: str
    keys: tuple[str, ...]  # environment variables, any one of which holds the key
    model: str  # the model caretaker uses with that key


#: The order in which a key in the environment picks a model (documented in the README). Each
#: model is known to the pinned litellm with tool calling; tests/test_models.py checks that, and
#: that litellm reads the same key variables, so an upgrade of litellm that drops one fails there.
PROVIDERS: tuple[Provider, ...] = (
    Provider("anthropic", ("ANTHROPIC_API_KEY",), "anthropic/claude-sonnet-4-5"),
    Provider("openai", ("OPENAI_API_KEY",), "openai/gpt-4.1"),
    Provider("gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "gemini/gemini-2.5-pro"),
    Provider("mistral", ("MISTRAL_API_KEY",), "mistral/codestral-latest"),
    Provider("deepseek", ("DEEPSEEK_API_KEY",), "deepseek/deepseek-chat"),
    Provider("xai", ("XAI_API_KEY",), "xai/grok-code-fast-1"),
    Provider("groq", ("GROQ_API_KEY",), "groq/openai/gpt-oss-120b"),
)

#: Where Ollama listens unless OLLAMA_HOST (Ollama's own variable) says otherwise.
OLLAMA_DEFAULT = "http://127.0.0.1:11434"
#: Seconds a local server may take to list its models; nothing local should need more.
PROBE_TIMEOUT = 0.5
#: Seconds the server named by --heal-api-base may take to list them: it may be remote.
SERVER_TIMEOUT = 3.0
#: Names of models trained for code, the ones worth choosing among a local server's models.
_CODE_MODEL = re.compile(r"cod(e|er|estral|ellama|egemma|egeex)|devstral|starcoder", re.I)
OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")


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


def ollama_address(env: Mapping[str, str]) -> str:
    """Ollama's base URL: OLLAMA_HOST (``host``, ``host:port`` or a URL) or the default local
    address; without a port, Ollama's own."""
    from urllib.parse import urlsplit

    host = env.get("OLLAMA_HOST", "").strip()
    if not host:
        return OLLAMA_DEFAULT
    parts = urlsplit(host if "://" in host else f"http://{host}")
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = parts.netloc.rsplit("@", 1)[-1]
    if port is None:
        netloc = f"{netloc.rstrip(':')}:11434"
    return f"{parts.scheme}://{netloc}"


def api_base_for(model: str, api_base: str | None, env: Mapping[str, str]) -> str | None:
    """Where to reach a model: --heal-api-base when given; for an Ollama model without one, the
    local Ollama (OLLAMA_HOST, as Ollama's own tools read it); else the provider's own API."""
    if api_base is not None:
        return api_base
    if model.startswith(OLLAMA_PREFIXES):
        return ollama_address(env)
    return None


def server_root(api_base: str) -> str:
    """The server's root, for Ollama's native API: an OpenAI-style ``/v1`` suffix removed."""
    base = api_base.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _get_json(url: str, timeout: float, body: dict[str, Any] | None = None) -> Any:
    """GET (or POST ``body`` to) a local URL and decode its JSON; None on any failure."""
    if not _listening(url, timeout):
        return None  # the usual answer when nothing is served: no HTTP machinery imported
    import urllib.request

    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    # A proxy from the environment must not intercept a request meant for a local server.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as response:
            return json.loads(response.read(1_000_000))
    except Exception:  # refused, timed out, not JSON, an HTTP error: not a server that answers
        return None


def _listening(url: str, timeout: float) -> bool:
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname or "", port), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def ollama_models(root: str, timeout: float = PROBE_TIMEOUT) -> tuple[str, ...] | None:
    """The models an Ollama server at ``root`` serves (``/api/tags``), or None if none answers."""
    data = _get_json(f"{root.rstrip('/')}/api/tags", timeout)
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        return None
    names = (m.get("name") or m.get("model") for m in data["models"] if isinstance(m, dict))
    return tuple(name for name in names if isinstance(name, str) and name)


def openai_models(api_base: str, timeout: float = PROBE_TIMEOUT) -> tuple[str, ...] | None:
    """The models an OpenAI-compatible server serves (``<base>/models``), or None."""
    data = _get_json(f"{api_base.rstrip('/')}/models", timeout)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None
    ids = (m.get("id") for m in data["data"] if isinstance(m, dict))
    return tuple(i for i in ids if isinstance(i, str) and i)


def _prefer_code(names: Sequence[str]) -> str | None:
    return next((n for n in names if is_code_model(n)), None)


def choose(settings: Settings, env: Mapping[str, str]) -> Settings:
    """Settings with the model chain decided and ``reason`` saying why, in the documented order:
    a configured chain (``--heal-model``, ``CARETAKER_MODEL``, ini); a model served at
    ``--heal-api-base``; the first provider with a key; a code model of a local Ollama; builtin.
    """
    configured = settings.sources.get("models")
    if configured is not None:
        return replace(settings, reason=configured)
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


# -- what a model can do -------------------------------------------------------------------------


@dataclass(frozen=True)
class Info:
    """What is known of a model; None where nobody knows."""

    tools: bool | None = None
    context: int | None = None  # input tokens
    input_price: float | None = None  # US dollars per million tokens
    output_price: float | None = None
    local: bool = False  # served locally (Ollama, a server on this machine): no price


_INFO: dict[tuple[str, str | None], Info] = {}
_INFO_LOCK = threading.Lock()


def info(model: str, api_base: str | None = None) -> Info:
    """A model's capabilities: Ollama's own ``/api/show`` for Ollama models (and for models
    litellm does not know on a local server that is an Ollama), litellm's model map for the rest.
    Remembered for the session."""
    key = (model, api_base)
    with _INFO_LOCK:
        known = _INFO.get(key)
    if known is not None:
        return known
    if model == BUILTIN:
        found = Info(tools=False, local=True)
    elif model.startswith(OLLAMA_PREFIXES):
        found = _ollama_info(model.split("/", 1)[1], api_base or ollama_address(os.environ))
    else:
        local = api_base is not None and _is_local(api_base)
        found = _litellm_info(model, local)
        if found.tools is None and local and api_base is not None and "/" in model:
            # Unknown to litellm, on a local OpenAI-compatible server: Ollama's own /v1 is one,
            # and its /api/show knows the model.
            shown = _ollama_info(model.split("/", 1)[1], server_root(api_base))
            if shown.tools is not None or shown.context is not None:
                found = shown
    with _INFO_LOCK:
        _INFO[key] = found
    return found


def _is_local(url: str) -> bool:
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def _litellm_info(model: str, local: bool) -> Info:
    from pytest_caretaker.llm import client as llm

    litellm = llm.litellm()
    try:
        with llm.quiet():
            data = litellm.get_model_info(model=model)
    except Exception:  # not in litellm's map: a custom or local model
        return Info(local=local)

    def price(name: str) -> float | None:
        value = data.get(name)
        return None if value is None or local else float(value) * 1_000_000

    context = data.get("max_input_tokens") or data.get("max_tokens")
    return Info(
        tools=bool(data.get("supports_function_calling")),
        context=int(context) if context else None,
        input_price=price("input_cost_per_token"),
        output_price=price("output_cost_per_token"),
        local=local,
    )


def _ollama_info(name: str, root: str) -> Info:
    data = _get_json(f"{server_root(root)}/api/show", PROBE_TIMEOUT * 4, {"model": name})
    if not isinstance(data, dict):
        return Info(local=True)
    capabilities = data.get("capabilities")
    tools = "tools" in capabilities if isinstance(capabilities, list) else None
    details = data.get("model_info")
    context = None
    if isinstance(details, dict):
        for field_name, value in details.items():
            if str(field_name).endswith("context_length") and isinstance(value, int):
                context = value
    return Info(tools=tools, context=context, local=True)


# -- --heal-models -------------------------------------------------------------------------------


def listing(settings: Settings, env: Mapping[str, str]) -> str:
    """The text ``pytest --heal-models`` prints."""
    chosen = choose(settings, env)
    lines = ["caretaker: the models it can use here", ""]
    origin = settings.sources.get("models")
    chain = " → ".join(chosen.models)
    if origin is not None:
        lines.append(f"configured: {chain} ({origin})")
    else:
        lines.append(f"no model configured; caretaker would use {chain} ({chosen.reason})")
    rows: dict[str, str] = dict.fromkeys(chosen.models, "")  # model -> where it comes from
    served_at: dict[str, str] = {}  # a model a server listed -> that server, to ask about it
    lines += ["", "Providers with a key in the environment (with no model configured, the first):"]
    found = keyed(env)
    for provider, variable in found:
        lines.append(f"  {provider.name:<10} {variable:<18} → {provider.model}")
        if not rows.get(provider.model):
            rows[provider.model] = variable
    if not found:
        lines.append("  none")
    checked = ", ".join(f"{p.name} ({' or '.join(p.keys)})" for p in PROVIDERS)
    lines += textwrap.wrap(
        f"(checked in this order: {checked})", 98, initial_indent="  ", subsequent_indent="   "
    )
    lines.append("")
    servers = [("Ollama", ollama_address(env))]
    if settings.api_base is not None:
        servers = [("Ollama", server_root(settings.api_base))]
        servers.append(("OpenAI-compatible server", settings.api_base))
    wait = PROBE_TIMEOUT if settings.api_base is None else SERVER_TIMEOUT
    ollama_answered = False
    for kind, url in servers:
        if kind == "Ollama":
            names = ollama_models(url, wait)
            prefix = "ollama_chat/"
        else:
            names = openai_models(url, wait)
            prefix = "openai/"
        if names is None:
            # An Ollama root that answered as Ollama is not also OpenAI-compatible: no line.
            if kind == "Ollama" or not ollama_answered:
                lines.append(f"{kind} at {url}: not answering")
            continue
        ollama_answered = ollama_answered or kind == "Ollama"
        lines.append(f"{kind} at {url}: {len(names)} model{'s' if len(names) != 1 else ''}")
        for name in names:
            served_at.setdefault(prefix + name, url)
            if not rows.get(prefix + name):
                rows[prefix + name] = f"{kind} at {url}"
    rows[BUILTIN] = "the model-free repairer"
    mark = "configured" if origin is not None else "chosen"
    for model in chosen.models:  # the chain in use, marked as such
        rows[model] = f"{rows[model]} ({mark})" if rows[model] else (origin or mark)
    addresses = {
        model: served_at.get(model) or api_base_for(model, chosen.api_base, env)
        for model in rows
        if model != BUILTIN
    }
    lines += ["", *_table(rows, addresses)]
    return "\n".join(lines) + "\n"


def _table(rows: Mapping[str, str], addresses: Mapping[str, str | None]) -> list[str]:
    """One row per model: ``rows`` gives where it comes from, ``addresses`` where to ask it."""
    head = ("model", "tools", "context", "$/M in", "$/M out", "from")
    body = []
    for model, origin in rows.items():
        described = info(model, addresses.get(model))
        body.append(
            (
                model,
                {True: "yes", False: "no", None: "?"}[described.tools],
                f"{described.context:,}" if described.context else "?",
                _price(described.input_price, described, model),
                _price(described.output_price, described, model),
                origin,
            )
        )
    widths = [max(len(row[i]) for row in (head, *body)) for i in range(len(head))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (head, *body)
    ]


def _price(value: float | None, described: Info, model: str) -> str:
    if model == BUILTIN:
        return "free"
    if value is None:
        return "local" if described.local else "?"
    return f"{value:.2f}"
