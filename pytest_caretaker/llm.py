"""Ask: the one module that talks to litellm, imported only when a model call is about to happen.

Every fault (network, status, bad body, empty reply) becomes a ModelError with a one-line reason.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_caretaker.prompts import TOOL, TOOL_NAME

#: Seconds one model request may take before it counts as failed.
REQUEST_TIMEOUT = 120.0
RETRIES = 2


class ModelError(Exception):
    """A model call that produced nothing usable; str() is the one-line reason."""


@dataclass(frozen=True)
class Reply:
    model: str
    text: str
    tool_arguments: tuple[str, ...]  # raw JSON strings of propose_fix calls
    tool_call_ids: tuple[str, ...]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    raw_tool_calls: tuple[dict[str, Any], ...] = field(default=(), compare=False)

    def as_message(self) -> dict[str, Any]:
        """The reply as an assistant message for the conversation history."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.raw_tool_calls:
            message["tool_calls"] = list(self.raw_tool_calls)
        return message


def _litellm() -> Any:
    # Never reach the network for litellm's price table at import time.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # In its default "DEV" mode litellm loads a .env file into os.environ when imported, found by
    # searching upward from its own files: with a virtualenv inside the project that is the
    # project's .env, whose values would then flow into every verification run.
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    with _quiet():
        import litellm

    litellm.suppress_debug_info = True
    return litellm


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """litellm's own warnings (pydantic schema notes) are not the user's: keep them out of the
    run's warnings summary."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def preload() -> None:
    """Import litellm ahead of the first call (from a thread, while other work goes on)."""
    with contextlib.suppress(Exception):
        _litellm()


def supports_tools(model: str) -> bool:
    try:
        with _quiet():
            return bool(_litellm().supports_function_calling(model=model))
    except Exception:
        return False


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    name = type(error).__name__
    for prefix in ("litellm.", "OpenAIException - ", f"{name}: "):
        text = text.replace(prefix, "")
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{name}: {text}" if text else name


def ask(
    model: str,
    messages: Sequence[dict[str, Any]],
    api_base: str | None,
    tools: bool,
) -> Reply:
    litellm = _litellm()
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": list(messages),
        "timeout": REQUEST_TIMEOUT,
        "num_retries": RETRIES,
        "temperature": 0,
    }
    if api_base:
        kwargs["api_base"] = api_base
        if model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            kwargs["api_key"] = "no-key-needed"  # local OpenAI-compatible servers ignore it
    if tools:
        kwargs["tools"] = [TOOL]
        # litellm 1.106 imports its optional MCP extra for any call with tools unless told that
        # no MCP tools are involved; the flag is consumed by litellm and never sent.
        kwargs["_skip_mcp_handler"] = True
    started = time.monotonic()
    try:
        with _quiet():
            response = litellm.completion(**kwargs)
    except Exception as error:  # litellm raises many types; each ends as a reason
        raise ModelError(_one_line(error)) from None
    seconds = time.monotonic() - started
    return _reply(model, response, seconds)


def _reply(model: str, response: Any, seconds: float) -> Reply:
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError) as error:
        raise ModelError(f"the model's response had no message ({error})") from None
    text = message.content or ""
    arguments: list[str] = []
    ids: list[str] = []
    raw: list[dict[str, Any]] = []
    for call in getattr(message, "tool_calls", None) or ():
        function = call.function
        if function.name != TOOL_NAME:
            continue
        arguments.append(function.arguments or "")
        ids.append(call.id)
        raw.append(
            {
                "id": call.id,
                "type": "function",
                "function": {"name": function.name, "arguments": function.arguments or ""},
            }
        )
    if not text.strip() and not arguments:
        raise ModelError("the model returned an empty reply")
    usage = getattr(response, "usage", None)
    hidden = getattr(response, "_hidden_params", None) or {}
    return Reply(
        model=model,
        text=text,
        tool_arguments=tuple(arguments),
        tool_call_ids=tuple(ids),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost=float(hidden.get("response_cost") or 0.0),
        seconds=seconds,
        raw_tool_calls=tuple(raw),
    )
