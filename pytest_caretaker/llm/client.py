"""Ask: the one module that talks to litellm, imported only when a model call is about to happen.

Every fault (network, status, bad body, empty or oversized reply) becomes a ModelError with a
one-line reason. Retries are caretaker's own: a bounded number, on rate limits and server errors
only, waiting what the provider's Retry-After asks when that is within MAX_WAIT.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_caretaker.llm import remote
from pytest_caretaker.llm.ratelimits import RATE_LIMITS, retry_after
from pytest_caretaker.llm.tools import SHOW_NAME, SHOW_TOOL, TOOL, TOOL_NAME

#: Seconds one model request may take before it counts as failed (--heal-model-timeout).
REQUEST_TIMEOUT = 120.0
#: Further tries after a rate limit (429) or a server error (5xx); never after a timeout.
RETRIES = 2
#: The longest wait between tries; a Retry-After beyond it ends the call at once.
MAX_WAIT = 30.0
#: The first wait when the provider does not say how long to wait; doubled for each retry.
BACKOFF = 0.5
#: Characters of reply caretaker reads; a longer reply is refused, not parsed.
MAX_REPLY = 200_000
#: The Reply fields (lists in JSON) of show calls, beside the fix's.
_SHOWS = ("show_arguments", "show_call_ids")
#: Characters of a rejected reply repeated to the model in the next attempt's conversation.
MAX_CANDIDATE = 12_000


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
    truncated: bool = False  # the model stopped at its output limit (finish_reason "length")
    raw_tool_calls: tuple[dict[str, Any], ...] = field(default=(), compare=False)
    show_arguments: tuple[str, ...] = ()  # raw JSON strings of show calls (tools.SHOW_TOOL)
    show_call_ids: tuple[str, ...] = ()

    def as_message(self, limit: int = MAX_CANDIDATE) -> dict[str, Any]:
        """The reply as an assistant message for the conversation history, each part cut to
        ``limit`` characters (tool arguments stay valid JSON)."""
        text = self.text
        if len(text) > limit:
            text = f"{text[:limit]}\n… ({len(text) - limit:,} more characters not repeated)"
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        calls = []
        for call in self.raw_tool_calls:
            arguments = call["function"]["arguments"]
            if len(arguments) > limit:
                arguments = json.dumps({"note": f"{len(arguments):,} characters, not repeated"})
            calls.append({**call, "function": {**call["function"], "arguments": arguments}})
        if calls:
            message["tool_calls"] = calls
        return message


def litellm() -> Any:
    # No network for litellm's price table at import time; and in its default "DEV" mode
    # litellm loads a .env file into os.environ, found upward from its own files: with a
    # virtualenv inside the project, the project's, whose values would reach every run.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    try:
        with quiet():
            import litellm
    except ImportError:  # its environment's model process did not start, or did not answer
        raise ModelError("caretaker's model process did not answer (litellm is not here)") from None
    litellm.suppress_debug_info = True
    return litellm


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """litellm's own warnings (pydantic schema notes) are not the user's: keep them out of the
    run's warnings summary."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def preload() -> None:
    """Import litellm ahead of the first call (from a thread, while other work goes on)."""
    with contextlib.suppress(Exception):
        litellm()


def one_line(error: BaseException) -> str:
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
    timeout: float = REQUEST_TIMEOUT,
) -> Reply:
    """The model's reply to ``messages``, tried again on rate limits and server errors; a
    ModelError with the one-line reason when there is none. Asked by the model process when
    one runs (remote.py), else here."""
    arguments: dict[str, Any] = {"model": model, "messages": list(messages)}
    arguments.update(api_base=api_base, tools=tools, timeout=timeout)
    answer = remote.call("ask", arguments, _longest(timeout) + remote.SLACK)
    if answer is None:
        return ask_here(model, messages, api_base, tools, timeout)
    if "reply" not in answer:
        raise ModelError(str(answer.get("error") or "caretaker's model process gave no reply"))
    try:
        data = dict(answer["reply"])
        for name in ("tool_arguments", "tool_call_ids", "raw_tool_calls", *_SHOWS):
            data[name] = tuple(data[name])
        return Reply(**data)
    except (TypeError, KeyError, ValueError):
        raise ModelError("caretaker's model process gave a reply it cannot read") from None


def _longest(timeout: float) -> float:
    """Seconds a request may take with all its tries and the waits between them."""
    return timeout * (RETRIES + 1) + MAX_WAIT * RETRIES


def ask_here(
    model: str,
    messages: Sequence[dict[str, Any]],
    api_base: str | None,
    tools: bool,
    timeout: float = REQUEST_TIMEOUT,
) -> Reply:
    """ask() in this process."""
    module = litellm()
    request = _request(model, messages, api_base, tools, timeout)
    provider = (model.split("/", 1)[0] if "/" in model else model, api_base or "")
    started = time.monotonic()
    held = RATE_LIMITS.left(provider)
    if held:  # another thread's request to this provider was told to wait
        time.sleep(held)
    for retry in range(RETRIES + 1):
        sent = time.monotonic()
        try:
            with quiet():
                response = module.completion(**request)
            break
        except Exception as error:  # litellm raises many types; each ends as a reason
            wait = _wait_to_retry(error, time.monotonic() - sent, timeout, retry)
            if getattr(error, "status_code", None) == 429:
                RATE_LIMITS.hold(provider, wait)  # every request to it waits, not this one
            time.sleep(max(wait, RATE_LIMITS.left(provider)))
    seconds = time.monotonic() - started
    return _reply(model, response, seconds)


def _request(
    model: str,
    messages: Sequence[dict[str, Any]],
    api_base: str | None,
    tools: bool,
    timeout: float,
) -> dict[str, Any]:
    """The arguments of litellm's completion() for one request."""
    request: dict[str, Any] = {
        "model": model,
        "messages": list(messages),
        "timeout": timeout,
        # Retries are ours (ask): litellm's need the optional tenacity package, and the
        # OpenAI client's would hide the provider's Retry-After from us.
        "num_retries": 0,
        "max_retries": 0,
        "temperature": 0,
        # A model that refuses a parameter (temperature on reasoning models) is asked without it.
        "drop_params": True,
    }
    if api_base:
        request["api_base"] = api_base
        if model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            request["api_key"] = "no-key-needed"  # local OpenAI-compatible servers ignore it
    if tools:
        request["tools"] = [TOOL, SHOW_TOOL]
        # litellm 1.106 imports its optional MCP extra for any call with tools unless told that
        # no MCP tools are involved; the flag is consumed by litellm and never sent.
        request["_skip_mcp_handler"] = True
    return request


def _wait_to_retry(error: BaseException, elapsed: float, timeout: float, retry: int) -> float:
    """Seconds to wait before trying again after ``error``, which came ``elapsed`` seconds after
    try number ``retry`` was sent; a ModelError with the reason when there is no trying again."""
    reason = one_line(error)
    # litellm reports a timeout as Timeout, APIConnectionError or even a 500 depending on
    # where it happened; the clock says what it was. A timeout is never retried.
    if elapsed >= 0.95 * timeout or "timed out" in reason.lower():
        raise ModelError(
            f"Timeout: the model did not answer within {timeout:g} s (--heal-model-timeout)"
        ) from None
    if type(error).__name__ == "ContextWindowExceededError":
        raise ModelError(
            "the prompt does not fit the model's context window "
            f"(ContextWindowExceededError: {reason.split(': ', 1)[-1][:120]})"
        ) from None
    if not _retryable(error):
        raise ModelError(reason) from None
    if retry == RETRIES:
        raise ModelError(f"{reason} ({RETRIES + 1} tries)") from None
    wait = retry_after(error)
    if wait is None:
        return BACKOFF * 2.0**retry
    if wait > MAX_WAIT:
        raise ModelError(
            f"{reason}; the provider asks to wait {wait:g} s, longer than caretaker "
            f"waits ({MAX_WAIT:g} s)"
        ) from None
    return wait


def _retryable(error: BaseException) -> bool:
    """A rate limit or a server error; not a timeout, a refused connection or a client error."""
    if type(error).__name__ in ("Timeout", "APIConnectionError", "APITimeoutError"):
        return False
    status = getattr(error, "status_code", None)
    return isinstance(status, int) and (status == 429 or 500 <= status <= 599)


def _reply(model: str, response: Any, seconds: float) -> Reply:
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError) as error:
        raise ModelError(f"the model's response had no message ({error})") from None
    text = message.content or ""
    if not isinstance(text, str):
        raise ModelError("the model's reply content is not text")
    calls, raw = _calls(message)
    arguments, ids = calls[TOOL_NAME]
    shows, show_ids = calls[SHOW_NAME]
    size = len(text) + sum(len(a) for a in (*arguments, *shows))
    if size > MAX_REPLY:
        raise ModelError(
            f"the model's reply is {size:,} characters, more than caretaker reads ({MAX_REPLY:,})"
        )
    truncated = getattr(response.choices[0], "finish_reason", None) == "length"
    if not text.strip() and not arguments and not shows:
        if truncated:
            raise ModelError("the model stopped at its output limit before replying")
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
        truncated=truncated,
        raw_tool_calls=tuple(raw),
        show_arguments=tuple(shows),
        show_call_ids=tuple(show_ids),
    )


def _calls(message: Any) -> tuple[dict[str, tuple[list[str], list[str]]], list[dict[str, Any]]]:
    """The arguments and ids of the message's calls of each tool offered (others are ignored),
    and the calls as the conversation's history repeats them."""
    calls: dict[str, tuple[list[str], list[str]]] = {TOOL_NAME: ([], []), SHOW_NAME: ([], [])}
    raw: list[dict[str, Any]] = []
    for call in getattr(message, "tool_calls", None) or ():
        function = call.function
        if function.name not in calls:
            continue
        arguments = function.arguments or ""
        calls[function.name][0].append(arguments)
        calls[function.name][1].append(call.id)
        named = {"name": function.name, "arguments": arguments}
        raw.append({"id": call.id, "type": "function", "function": named})
    return calls, raw
