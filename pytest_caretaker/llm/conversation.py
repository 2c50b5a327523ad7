"""The conversation with a model across attempts: what is sent again, and what fits.

Attempt N carries attempt N-1's candidate and the reason it was rejected; older exchanges are
left out, oldest first, when they no longer fit the model's window or caretaker's own limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_caretaker.llm import context
from pytest_caretaker.text import plural

#: Characters of verification output fed back to the model with a rejection (its end).
MAX_FEEDBACK = 3_000
#: Characters of conversation history (earlier candidates and rejections) kept in a request;
#: the oldest exchanges go first, the last one always stays.
MAX_HISTORY = 40_000
#: A conservative characters-per-token ratio for fitting a prompt into a model's window.
CHARS_PER_TOKEN = 3
#: Tokens of a model's window left free for its reply.
REPLY_ROOM = 4_096


def echoes(reply: str, prompt: str) -> bool:
    """Whether a reply is mostly the prompt sent back (most of its distinctive lines, verbatim)."""
    lines = {line.strip() for line in prompt.splitlines() if len(line.strip()) >= 20}
    if len(lines) < 5 or len(reply) < len(prompt) // 2:
        return False
    repeated = sum(1 for line in lines if line in reply)
    return repeated >= 0.8 * len(lines)


def _size(message: dict[str, Any]) -> int:
    size = len(str(message.get("content") or ""))
    for call in message.get("tool_calls") or ():
        size += len(str(call.get("function", {}).get("arguments", "")))
    return size


def fit(messages: Sequence[dict[str, Any]], room: int) -> list[dict[str, Any]]:
    """The conversation within ``room`` characters and MAX_HISTORY: the system prompt, the
    failure and the latest exchange (candidate and its rejection) always stay; the oldest
    exchanges are left out first, and a note says how many."""
    head, history = list(messages[:2]), list(messages[2:])
    exchanges: list[list[dict[str, Any]]] = []
    for message in history:
        if message.get("role") == "assistant" or not exchanges:
            exchanges.append([])
        exchanges[-1].append(message)
    budget = min(room - sum(_size(m) for m in head), MAX_HISTORY)
    kept: list[list[dict[str, Any]]] = []
    for exchange in reversed(exchanges):
        size = sum(_size(m) for m in exchange)
        if kept and size > budget:
            break
        kept.insert(0, exchange)
        budget -= size
    dropped = len(exchanges) - len(kept)
    if dropped:
        note = f"({plural(dropped, 'earlier rejected attempt')} left out.)"
        head[1] = {**head[1], "content": f"{head[1].get('content') or ''}\n{note}"}
    return head + [message for exchange in kept for message in exchange]


def left(messages: Sequence[dict[str, Any]], room: int) -> int:
    """Characters one more message may hold before fit() leaves anything of the conversation
    out (at most ``room``, the request's)."""
    head = sum(_size(m) for m in messages[:2])
    return min(room - head, MAX_HISTORY) - sum(_size(m) for m in messages[2:])


def size(messages: Sequence[dict[str, Any]]) -> int:
    """Characters of the conversation, as fit() counts them."""
    return sum(_size(m) for m in messages)


def room_for(window: int | None) -> int:
    """Characters a request may hold: the model's window less room for its reply, or
    caretaker's own limits when the window is unknown."""
    if window is None:
        return context.DEFAULT_BUDGET + MAX_HISTORY
    return max(4_000, (window - REPLY_ROOM) * CHARS_PER_TOKEN)
