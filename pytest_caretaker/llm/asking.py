"""Asking: what a model's reply asks to see, the messages that answer it, and how it is said.

A model that calls tools asks by calling ``show``. A text model asks by lines ``SHOW: name`` in a
reply that proposes no fix, or by naming there, in backticks or as a call, a function of the
project that the prompt did not show (``the bug must be in `parse_header```). Each is answered
(show.py) in the conversation's next round, at most MAX_REQUESTS a round. A reply that proposes
a fix is judged first (repairer.py): what else it asks goes unshown.
"""

from __future__ import annotations

import builtins
import json
import keyword
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_caretaker.llm.client import Reply
from pytest_caretaker.llm.show import Index, Shown
from pytest_caretaker.llm.tools import SHOW_NAME, TOOL_NAME
from pytest_caretaker.text import plural

#: Requests one round answers; those beyond are told to ask again.
MAX_REQUESTS = 5
#: Names taken from a reply that names, rather than asks for, what it needs.
MAX_NAMED = 3
#: Characters a round's answers leave for what follows them (messages: what to do next).
CLOSING = 200

_SHOW_LINE = re.compile(r"(?im)^[ \t>*_\-]*`?SHOW:(?P<name>[^\n]*)$")
_NAMED = re.compile(
    r"`(?P<quoted>[A-Za-z_][\w.]*)(?:\(\))?`|(?<![\w.])(?P<called>[A-Za-z_][\w.]*)\("
)
_COMMON = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"self", "cls", "super"}
NOT_SHOWN = "Not shown: the reply proposes a fix, which is judged first."


@dataclass(frozen=True)
class Request:
    name: str
    path: str | None = None
    call_id: str | None = None  # the show call it answers
    error: str = ""  # why the call cannot be answered


def explicit(reply: Reply) -> list[Request]:
    """What the reply asks to see in so many words: its show calls, else its SHOW lines."""
    if reply.show_call_ids:
        return [
            _read_call(a, i) for a, i in zip(reply.show_arguments, reply.show_call_ids, strict=True)
        ]
    names = [m["name"].strip().strip("`*_ ").rstrip(".,;") for m in _SHOW_LINE.finditer(reply.text)]
    return [Request(name) for name in dict.fromkeys(n for n in names if n)]


def _read_call(arguments: str, call_id: str) -> Request:
    try:
        data = json.loads(arguments or "{}")
    except json.JSONDecodeError as error:
        return Request("", call_id=call_id, error=f"the arguments are not valid JSON ({error.msg})")
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(name, str) or not name.strip():
        return Request("", call_id=call_id, error='the call needs a "name" string')
    path = data.get("path")
    return Request(name, path if isinstance(path, str) else None, call_id)


def named(text: str, shown: Collection[str], known: Callable[[str], bool]) -> list[Request]:
    """The functions of the project a reply names that it was not shown (shown: their names,
    qualified or not, and refs), and that known says the project defines once."""
    found: list[str] = []
    for match in _NAMED.finditer(text):
        name = match["quoted"] or match["called"]
        last = name.rpartition(".")[2]
        if len(last) < 3 or last in _COMMON or name in shown or name in found:
            continue
        if known(name):
            found.append(name)
            if len(found) == MAX_NAMED:
                break
    return [Request(name) for name in found]


def answer(requests: Sequence[Request], index: Index, budget: int) -> list[Shown]:
    """What each request gets, in order, the round's answers within budget characters."""
    answers: list[Shown] = []
    budget -= CLOSING
    for number, request in enumerate(requests):
        asked = request.name or SHOW_NAME
        if request.error:
            shown = Shown(asked, "not shown", f"Not shown: {request.error}.")
        elif number >= MAX_REQUESTS:
            text = f"Not shown: at most {MAX_REQUESTS} names a round; ask for it again."
            shown = Shown(asked, "not shown", text)
        else:
            shown = index.answer(request.name, request.path, budget)
        budget -= len(shown.answer)
        answers.append(shown)
    return answers


def messages(
    requests: Sequence[Request], answers: Sequence[Shown], left: int, tools: bool
) -> list[dict[str, Any]]:
    """The answers as the conversation's next messages: one tool message per show call, or one
    user message; the last one says what the model may do next (left: rounds of showing left)."""
    if left:
        more = f"{plural(left, 'more round')} of it before a fix"
        ask = f"call `{SHOW_NAME}` again ({more})" if tools else f"reply with SHOW: lines ({more})"
        then = f"Call `{TOOL_NAME}` with the fix" if tools else "Reply with the fix as asked"
        closing = f"{then}, or {ask}."
    else:
        fix = f"call `{TOOL_NAME}`" if tools else "reply with the fix as asked"
        closing = f"That was the last round of showing code before a fix: {fix} now."
    if requests and all(r.call_id is not None for r in requests):
        tool: list[dict[str, Any]] = [
            {"role": "tool", "tool_call_id": request.call_id, "content": shown.answer}
            for request, shown in zip(requests, answers, strict=True)
        ]
        tool[-1]["content"] += f"\n\n{closing}"
        return tool
    text = "\n\n".join(shown.answer for shown in answers)
    return [{"role": "user", "content": f"{text}\n\n{closing}"}]
