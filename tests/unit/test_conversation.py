"""The conversation of a repair: fitting it into the model's window, and repeating a reply."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_caretaker.llm.client import MAX_CANDIDATE, Reply
from pytest_caretaker.llm.conversation import MAX_HISTORY, fit

Message = dict[str, Any]

SYSTEM: Message = {"role": "system", "content": "You repair failing Python tests." + "s" * 70}
USER: Message = {"role": "user", "content": "The test `t` fails." + "u" * 81}
HEAD_SIZE = len(SYSTEM["content"]) + len(USER["content"])  # 200


def text_exchange(number: int, size: int = 100) -> list[Message]:
    """A rejected plain-text candidate and the rejection, ``size`` characters in all."""
    reply = f"attempt {number}: "
    feedback = f"rejected {number}: "
    half = size // 2
    return [
        {"role": "assistant", "content": reply + "a" * (half - len(reply))},
        {"role": "user", "content": feedback + "r" * (size - half - len(feedback))},
    ]


def tool_exchange(
    number: int, arguments: int = 50, feedback: int = 50, calls: int = 1
) -> list[Message]:
    """A rejected tool-call candidate (``calls`` calls) and one tool message per call."""
    ids = [f"call_{number}_{i}" for i in range(calls)]
    assistant: Message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "propose_fix", "arguments": "x" * arguments},
            }
            for call_id in ids
        ],
    }
    return [assistant] + [
        {"role": "tool", "tool_call_id": call_id, "content": "f" * feedback} for call_id in ids
    ]


def size(message: Message) -> int:
    total = len(message.get("content") or "")
    for call in message.get("tool_calls") or ():
        total += len(call["function"]["arguments"])
    return total


def conversation(*exchanges: list[Message]) -> list[Message]:
    return [SYSTEM, USER] + [message for exchange in exchanges for message in exchange]


def note_of(messages: list[Message]) -> str:
    content = messages[1]["content"]
    assert content.startswith(USER["content"])
    return str(content[len(USER["content"]) :])


def assert_tool_messages_follow_their_call(messages: list[Message]) -> None:
    """Every tool message answers a call of the assistant message just before its run."""
    open_calls: set[str] = set()
    for message in messages:
        if message["role"] == "assistant":
            open_calls = {call["id"] for call in message.get("tool_calls") or ()}
        elif message["role"] == "tool":
            assert message["tool_call_id"] in open_calls, messages
            open_calls.discard(message["tool_call_id"])
        else:
            open_calls = set()


# -- fit -----------------------------------------------------------------------------------------


def test_a_conversation_that_fits_is_unchanged() -> None:
    messages = conversation(text_exchange(1), tool_exchange(2), text_exchange(3))
    before = copy.deepcopy(messages)
    assert fit(messages, room=10_000) == before
    assert messages == before


def test_the_first_request_is_unchanged_whatever_the_room() -> None:
    assert fit([SYSTEM, USER], room=10) == [SYSTEM, USER]


def test_exactly_the_room_is_enough() -> None:
    exchanges = [text_exchange(n) for n in (1, 2, 3)]
    messages = conversation(*exchanges)
    assert fit(messages, room=HEAD_SIZE + 300) == messages
    fitted = fit(messages, room=HEAD_SIZE + 299)
    assert fitted[2:] == exchanges[1] + exchanges[2]
    assert note_of(fitted) == "\n(1 earlier rejected attempt left out.)"


def test_the_oldest_exchanges_go_first_when_the_room_is_short() -> None:
    exchanges = [text_exchange(n) for n in range(1, 6)]
    messages = conversation(*exchanges)
    fitted = fit(messages, room=HEAD_SIZE + 250)
    assert fitted[0] == SYSTEM
    assert fitted[2:] == exchanges[3] + exchanges[4]
    assert note_of(fitted) == "\n(3 earlier rejected attempts left out.)"


def test_the_history_is_held_to_max_history_however_large_the_room() -> None:
    third = MAX_HISTORY // 3 + 10  # three exchanges are a little over MAX_HISTORY
    exchanges = [text_exchange(n, third) for n in range(1, 5)]
    messages = conversation(*exchanges)
    fitted = fit(messages, room=10 * MAX_HISTORY)
    assert fitted[2:] == exchanges[2] + exchanges[3]
    assert sum(size(m) for m in fitted[2:]) <= MAX_HISTORY
    assert note_of(fitted) == "\n(2 earlier rejected attempts left out.)"


def test_the_latest_exchange_stays_even_when_nothing_fits() -> None:
    exchanges = [text_exchange(1), tool_exchange(2), text_exchange(3, MAX_HISTORY * 2)]
    messages = conversation(*exchanges)
    fitted = fit(messages, room=0)
    assert fitted[0] == SYSTEM
    assert fitted[2:] == exchanges[2]
    assert note_of(fitted) == "\n(2 earlier rejected attempts left out.)"


def test_an_older_exchange_is_not_kept_once_a_newer_one_is_left_out() -> None:
    # Newest small, middle large, oldest small: the oldest would fit the room alone, but the
    # history keeps only a run of the latest exchanges.
    exchanges = [text_exchange(1, 20), text_exchange(2, 1_000), text_exchange(3, 100)]
    fitted = fit(conversation(*exchanges), room=HEAD_SIZE + 200)
    assert fitted[2:] == exchanges[2]
    assert note_of(fitted) == "\n(2 earlier rejected attempts left out.)"


def test_the_note_goes_to_the_failure_message_and_the_input_is_not_changed() -> None:
    messages = conversation(*[text_exchange(n) for n in range(1, 4)])
    before = copy.deepcopy(messages)
    fitted = fit(messages, room=HEAD_SIZE + 100)
    assert messages == before  # the caller's conversation keeps growing from the original
    assert fitted[0] == SYSTEM
    assert fitted[1]["role"] == "user"
    assert fitted[1]["content"] == USER["content"] + "\n(2 earlier rejected attempts left out.)"
    assert sum("left out" in str(m.get("content")) for m in fitted) == 1


def test_a_failure_message_without_content_gets_the_note_alone() -> None:
    user: Message = {"role": "user", "content": None}
    exchanges = [text_exchange(1), text_exchange(2)]
    fitted = fit([SYSTEM, user, *exchanges[0], *exchanges[1]], room=150)
    assert fitted[1] == {"role": "user", "content": "\n(1 earlier rejected attempt left out.)"}


def test_tool_messages_stay_with_the_call_they_answer() -> None:
    # The older exchange's call is small and its tool messages large: a cut by message would
    # keep the assistant message and lose its answers (or the reverse).
    older = tool_exchange(1, arguments=10, feedback=400, calls=2)
    latest = tool_exchange(2, arguments=60, feedback=40, calls=2)
    messages = conversation(older, latest)
    fitted = fit(messages, room=HEAD_SIZE + 200)
    assert fitted[2:] == latest
    assert note_of(fitted) == "\n(1 earlier rejected attempt left out.)"
    assert_tool_messages_follow_their_call(fitted)
    whole = fit(messages, room=HEAD_SIZE + 10_000)
    assert whole == messages
    assert_tool_messages_follow_their_call(whole)


def test_the_size_of_tool_arguments_counts() -> None:
    # Content None, but 5,000 characters of arguments: too big to keep beside the latest.
    exchanges = [tool_exchange(1, arguments=5_000, feedback=10), tool_exchange(2)]
    fitted = fit(conversation(*exchanges), room=HEAD_SIZE + 1_000)
    assert fitted[2:] == exchanges[1]


@st.composite
def histories(draw: st.DrawFn) -> list[list[Message]]:
    count = draw(st.integers(min_value=0, max_value=6))
    exchanges = []
    for number in range(count):
        if draw(st.booleans()):
            exchanges.append(text_exchange(number, draw(st.integers(20, 30_000))))
        else:
            exchanges.append(
                tool_exchange(
                    number,
                    arguments=draw(st.integers(0, 30_000)),
                    feedback=draw(st.integers(0, 3_000)),
                    calls=draw(st.integers(1, 3)),
                )
            )
    return exchanges


@settings(max_examples=150, deadline=None)
@given(histories(), st.integers(min_value=0, max_value=120_000))
def test_fit_keeps_the_latest_run_of_exchanges_that_fits(
    exchanges: list[list[Message]], room: int
) -> None:
    messages = conversation(*exchanges)
    fitted = fit(messages, room)
    assert fitted[0] == SYSTEM
    assert_tool_messages_follow_their_call(fitted)
    # The kept history is a run of whole exchanges, the latest ones.
    kept = 0
    while kept < len(exchanges) and fitted[2:] != [
        m for exchange in exchanges[len(exchanges) - kept :] for m in exchange
    ]:
        kept += 1
    kept_messages = [m for exchange in exchanges[len(exchanges) - kept :] for m in exchange]
    assert fitted[2:] == kept_messages
    if exchanges:
        assert kept >= 1  # the latest exchange always stays
    dropped = len(exchanges) - kept
    budget = min(room - HEAD_SIZE, MAX_HISTORY)
    used = sum(size(m) for m in kept_messages)
    if kept > 1:
        assert used <= budget
    if dropped:
        next_older = sum(size(m) for m in exchanges[dropped - 1])
        assert used + next_older > budget  # the next older one would not have fitted
        plural = "s" if dropped > 1 else ""
        assert note_of(fitted) == f"\n({dropped} earlier rejected attempt{plural} left out.)"
    else:
        assert fitted[1] == USER


# -- Reply.as_message ----------------------------------------------------------------------------


def reply(text: str = "", calls: tuple[dict[str, Any], ...] = ()) -> Reply:
    return Reply(
        model="openai/scripted",
        text=text,
        tool_arguments=tuple(call["function"]["arguments"] for call in calls),
        tool_call_ids=tuple(call["id"] for call in calls),
        raw_tool_calls=calls,
    )


def call(call_id: str, arguments: str) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "propose_fix", "arguments": arguments},
    }


def test_a_short_reply_is_repeated_as_it_is() -> None:
    assert reply("Divide by the count.").as_message() == {
        "role": "assistant",
        "content": "Divide by the count.",
    }


def test_a_reply_of_exactly_the_limit_is_not_cut() -> None:
    text = "y" * 100
    assert reply(text).as_message(limit=100)["content"] == text
    assert reply("y" * MAX_CANDIDATE).as_message()["content"] == "y" * MAX_CANDIDATE


def test_a_long_text_is_cut_with_a_note() -> None:
    text = "".join(f"{i:05d}" for i in range(3_000))  # 15,000 characters
    content = reply(text).as_message()["content"]
    assert content.startswith(text[:MAX_CANDIDATE])
    assert text[: MAX_CANDIDATE + 5] not in content
    assert content.endswith("(3,000 more characters not repeated)")
    assert len(content) < len(text)


def test_a_long_text_is_cut_at_the_given_limit() -> None:
    content = reply("z" * 250).as_message(limit=100)["content"]
    assert content == "z" * 100 + "\n… (150 more characters not repeated)"


def test_short_tool_calls_are_repeated_as_they_are() -> None:
    calls = (call("call_1", json.dumps({"explanation": "e", "edits": []})),)
    message = reply("", calls).as_message()
    assert message == {"role": "assistant", "content": None, "tool_calls": list(calls)}


def test_long_tool_arguments_become_a_short_valid_json_note() -> None:
    code = "def mean(xs):\n" + "    # padding\n" * 2_000 + "    return sum(xs) / len(xs)\n"
    arguments = json.dumps({"explanation": "e", "edits": [{"path": "c.py", "code": code}]})
    assert len(arguments) > MAX_CANDIDATE
    short = json.dumps({"explanation": "short", "edits": []})
    calls = (call("call_long", arguments), call("call_short", short))
    original = copy.deepcopy(calls)
    message = reply("Here is the fix.", calls).as_message()
    assert message["content"] == "Here is the fix."
    long_call, short_call = message["tool_calls"]
    assert long_call["id"] == "call_long"
    assert long_call["type"] == "function"
    assert long_call["function"]["name"] == "propose_fix"
    replaced = long_call["function"]["arguments"]
    assert len(replaced) < 200
    data = json.loads(replaced)
    assert isinstance(data, dict)
    assert f"{len(arguments):,}" in json.dumps(data)
    assert short_call == original[1]
    assert calls == original  # the reply itself is not changed


def test_tool_arguments_are_cut_at_the_given_limit() -> None:
    arguments = json.dumps({"explanation": "x" * 80, "edits": []})
    kept = reply("", (call("c1", arguments),)).as_message(limit=len(arguments))
    assert kept["tool_calls"][0]["function"]["arguments"] == arguments
    cut = reply("", (call("c1", arguments),)).as_message(limit=len(arguments) - 1)
    assert json.loads(cut["tool_calls"][0]["function"]["arguments"]) != json.loads(arguments)
    assert cut["tool_calls"][0]["id"] == "c1"
