"""Listing: the text ``pytest --heal-models`` prints, and only that.

What caretaker would use and why, the providers with a key, what the servers on hand answer,
then one table row per model with what it can do and where it comes from. Deciding is
models.py's and knowing capabilities.py's: this module only asks them and lays out the answers,
so it is imported only when the listing is asked for.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field

from pytest_caretaker.llm import extra, remote
from pytest_caretaker.llm.capabilities import (
    PROBE_TIMEOUT,
    SERVER_TIMEOUT,
    Info,
    info,
    ollama_address,
    ollama_models,
    openai_models,
    server_root,
)
from pytest_caretaker.llm.models import PROVIDERS, api_base_for, choose, keyed
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.text import plural

OLLAMA = "Ollama"


@dataclass(frozen=True)
class _Server:
    """A server asked for its models, as the listing names it."""

    kind: str  # OLLAMA or "OpenAI-compatible server"
    url: str
    prefix: str  # what litellm puts before the name of a model it serves

    def models(self, wait: float) -> tuple[str, ...] | None:
        ask = ollama_models if self.kind == OLLAMA else openai_models
        return ask(self.url, wait)


@dataclass
class _Rows:
    """The table's rows in the order their models are found, each with where it comes from;
    and, for a model a server listed, that server, which is where to ask what it can do."""

    origin: dict[str, str]
    served_at: dict[str, str] = field(default_factory=dict)

    def offer(self, model: str, origin: str) -> None:
        """A model found: it keeps its place and the first origin it was found with."""
        if not self.origin.get(model):
            self.origin[model] = origin


def text(settings: Settings, env: Mapping[str, str]) -> str:
    """The text ``pytest --heal-models`` prints."""
    chosen = choose(settings, env)
    configured = settings.sources.get("models")
    rows = _Rows(dict.fromkeys(chosen.models, ""))
    lines = ["caretaker: the models it can use here", "", _choice(chosen, configured)]
    located = extra.where(env)
    if located is not None:
        lines.append(f"models run from {located.python} ({located.describe()})")
    elif extra.INSTALL not in chosen.reason:  # the one line that says what to run, once
        lines.append(extra.needs("asking a model"))
    lines += ["", *_providers(env, rows), ""]
    lines += _servers(settings, env, rows)
    rows.origin[BUILTIN] = "the model-free repairer"
    mark = "configured" if configured is not None else "chosen"
    for model in chosen.models:  # the chain in use, marked as such
        origin = rows.origin[model]
        rows.origin[model] = f"{origin} ({mark})" if origin else (configured or mark)
    addresses = {
        model: rows.served_at.get(model) or api_base_for(model, chosen.api_base, env)
        for model in rows.origin
        if model != BUILTIN
    }
    # litellm knows the models' capabilities: asked in the model process when it is not here.
    apart = located is not None and not extra.installed() and remote.begin([])
    try:
        lines += ["", *_table(rows.origin, addresses)]
    finally:
        if apart:
            remote.stop()
    return "\n".join(lines) + "\n"


def _choice(chosen: Settings, configured: str | None) -> str:
    chain = " → ".join(chosen.models)
    if configured is not None:
        return f"configured: {chain} ({configured})"
    return f"no model configured; caretaker would use {chain} ({chosen.reason})"


def _providers(env: Mapping[str, str], rows: _Rows) -> list[str]:
    """The providers with a key, in the order that picks among them, each model offered."""
    lines = ["Providers with a key in the environment (with no model configured, the first):"]
    found = keyed(env)
    for provider, variable in found:
        lines.append(f"  {provider.name:<10} {variable:<18} → {provider.model}")
        rows.offer(provider.model, variable)
    if not found:
        lines.append("  none")
    checked = ", ".join(f"{p.name} ({' or '.join(p.keys)})" for p in PROVIDERS)
    return lines + textwrap.wrap(
        f"(checked in this order: {checked})", 98, initial_indent="  ", subsequent_indent="   "
    )


def _servers(settings: Settings, env: Mapping[str, str], rows: _Rows) -> list[str]:
    """One line per server asked, each model it serves offered: the local Ollama, or the
    --heal-api-base server asked both ways (as Ollama at its root, as OpenAI-compatible)."""
    if settings.api_base is None:
        servers = [_Server(OLLAMA, ollama_address(env), "ollama_chat/")]
        wait = PROBE_TIMEOUT
    else:
        servers = [
            _Server(OLLAMA, server_root(settings.api_base), "ollama_chat/"),
            _Server("OpenAI-compatible server", settings.api_base, "openai/"),
        ]
        wait = SERVER_TIMEOUT
    lines = []
    ollama_answered = False
    for server in servers:
        names = server.models(wait)
        where = f"{server.kind} at {server.url}"
        if names is None:
            # An Ollama root that answered as Ollama is not also OpenAI-compatible: no line.
            if server.kind == OLLAMA or not ollama_answered:
                lines.append(f"{where}: not answering")
            continue
        ollama_answered = ollama_answered or server.kind == OLLAMA
        lines.append(f"{where}: {plural(len(names), 'model')}")
        for name in names:
            rows.served_at.setdefault(server.prefix + name, server.url)
            rows.offer(server.prefix + name, where)
    return lines


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
