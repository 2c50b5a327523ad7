"""Capabilities: what the servers on hand and litellm say about models; nothing is decided here.

Where a local Ollama listens, which models a server lists (Ollama's ``/api/tags``, an
OpenAI-compatible ``/models``), and what one model can do: tool calling, context window, price.
models.py chooses among them and listing.py shows them, so both ask here. A server that does not
answer within its short timeout serves nothing: every question ends as None or an unknown, never as
an error. litellm, which knows the providers' models, is imported only to describe one of them.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_caretaker.settings import BUILTIN

#: Where Ollama listens unless OLLAMA_HOST (Ollama's own variable) says otherwise.
OLLAMA_DEFAULT = "http://127.0.0.1:11434"
#: Seconds a local server may take to list its models; nothing local should need more.
PROBE_TIMEOUT = 0.5
#: Seconds the server named by --heal-api-base may take to list them: it may be remote.
SERVER_TIMEOUT = 3.0
OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")


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
        found = _described(model, local)
        if found.tools is None and local and api_base is not None and "/" in model:
            # Unknown to litellm, on a local OpenAI-compatible server: Ollama's own /v1 is one,
            # and its /api/show knows the model.
            shown = _ollama_info(model.split("/", 1)[1], server_root(api_base))
            if shown.tools is not None or shown.context is not None:
                found = shown
    with _INFO_LOCK:
        _INFO[key] = found
    return found


def is_local(model: str, api_base: str | None) -> bool:
    """Whether a model is the user's own to run (Ollama, a server on this machine): its calls
    have no price."""
    return model.startswith(OLLAMA_PREFIXES) or (api_base is not None and _is_local(api_base))


def _is_local(url: str) -> bool:
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    return host in ("localhost", "::1") or host.startswith("127.")


def _described(model: str, local: bool) -> Info:
    """litellm's knowledge of the model, from the model process when one runs (remote.py)."""
    from pytest_caretaker.llm import remote

    answer = remote.call("info", {"model": model, "local": local}, remote.SLACK)
    if answer is None:
        return litellm_info(model, local)
    data = answer.get("info")
    return Info(**data) if isinstance(data, dict) else Info(local=local)


def litellm_info(model: str, local: bool) -> Info:
    from pytest_caretaker.llm import client as llm
    from pytest_caretaker.llm import extra

    if not extra.installed():  # litellm is not here (the model process knows, if it runs)
        return Info(local=local)
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
