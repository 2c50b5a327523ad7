"""A model asks to see code the first prompt did not show (#47, item 4), end to end against the
scripted server: a tool-calling model calls ``show``, a text model replies ``SHOW: name`` or names
the function it needs; the next request carries its source, and the fix to it heals. Played as an
attacker too: a ``show`` of the project's ``.env``, of a link to it, or of a file outside the
project root is refused, and nothing of them reaches any request. A model that never stops
asking is stopped after MAX_ROUNDS rounds.

The project's bug is where a trace cannot see it: ``build_table`` (builder.py) ran at import,
when ``TABLE`` was built (table.py), so the failing test ran ``square`` and read ``TABLE`` but
never ran ``build_table``, and the first prompt does not show it.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from helpers import TEXT_MODEL, heal_args

from pytest_caretaker.llm.tools import MAX_ROUNDS
from pytest_caretaker.testing import ScriptedServer, show_call, text, tool_call

BUILDER = """\
def build_table():
    table = {}
    for n in range(1, 6):
        table[n] = n * n + 1
    return table
"""
TABLE = "from builder import build_table\n\nTABLE = build_table()\n"
FIXED = """\
def build_table():
    table = {}
    for n in range(1, 6):
        table[n] = n * n
    return table
"""
SQUARE = "from table import TABLE\n\n\ndef square(n):\n    return TABLE[n]\n"
TESTS = """\
from square import square
from table import TABLE


def test_square():
    assert square(3) == 9


def test_five_entries():
    assert len(TABLE) == 5
"""
SECRET = "Wombat-Relay-Pass-5531"
OUTSIDE = "OUTSIDE_MARKER = 'quokka-beyond-the-root-7781'\n"
FIX = tool_call(
    "build_table adds one.", [{"path": "builder.py", "function": "build_table", "code": FIXED}]
)


@pytest.fixture
def table(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(builder=BUILDER, table=TABLE, square=SQUARE, test_square=TESTS)
    return pytester


def _sent(llm: ScriptedServer) -> list[str]:
    """Each request body as text."""
    return [json.dumps(request, ensure_ascii=False) for request in llm.requests]


def test_a_tool_model_asks_to_see_a_function_and_its_fix_to_it_heals(
    table: pytest.Pytester, llm: ScriptedServer
) -> None:
    llm.script(show_call("build_table"), FIX)

    result = table.runpytest(*heal_args(llm), "-v")

    first, _ = _sent(llm)
    assert "def square" in first and "def build_table" not in first  # the prompt lacked it
    assert [t["function"]["name"] for t in llm.requests[0]["tools"]] == ["propose_fix", "show"]
    answer = llm.requests[1]["messages"][-1]
    assert answer["role"] == "tool" and answer["tool_call_id"] == "call_1"
    assert "`builder.py::build_table` (lines 1–5 of builder.py)" in answer["content"]
    assert "table[n] = n * n + 1" in answer["content"]
    result.stdout.fnmatch_lines(
        [
            "HEALED test_square.py::test_square",
            "  patched builder.py::build_table",
            "  1 attempt · asked to see 1 definition · 300 tokens · $* · * s · openai/gpt-4o-mini",
            "  asked to see 1 definition: build_table (shown)",
        ]
    )
    transcripts = list((table.path / ".caretaker" / "transcripts").rglob("*.md"))
    said = "\n".join(path.read_text() for path in transcripts)
    assert "- asked to see 1 definition: build_table (shown)" in said
    assert "## Attempt 1: shown" in said and "table[n] = n * n + 1" in said


@pytest.mark.parametrize(
    "asking",
    [
        "To fix this I need the code that fills the table.\n\nSHOW: build_table\n",
        "The table is filled wrong, but the prompt does not show `build_table`, which fills it.",
    ],
    ids=["SHOW line", "named"],
)
def test_a_text_model_that_asks_or_names_a_function_gets_it_in_its_next_round(
    table: pytest.Pytester, llm: ScriptedServer, asking: str
) -> None:
    # No `# file:` line: the definition shown is one the fix may replace, like a suspect.
    fix = f"It adds one to each square.\n\n```python\n{FIXED}```\n"
    llm.script(text(asking), text(fix))

    result = table.runpytest(*heal_args(llm, TEXT_MODEL))

    assert "SHOW: name" in llm.requests[0]["messages"][0]["content"]  # the prompt says how
    answer = llm.requests[1]["messages"][-1]
    assert answer["role"] == "user" and "table[n] = n * n + 1" in answer["content"]
    result.stdout.fnmatch_lines(
        ["HEALED test_square.py::test_square", "  1 attempt · asked to see 1 definition · *"]
    )


def test_show_refuses_secret_files_and_anything_outside_the_root_and_leaks_nothing(
    table: pytest.Pytester, llm: ScriptedServer
) -> None:
    (table.path / ".env").write_text(f"DB_PASSWORD={SECRET}\n")
    os.symlink(".env", table.path / "settings_local.py")  # a Python name for the secret file
    outside = table.path.parent / "outside.py"
    outside.write_text(OUTSIDE)
    llm.script(
        show_call(".env"),
        show_call(str(outside)),
        show_call("settings_local.py"),
        FIX,
    )

    result = table.runpytest(*heal_args(llm), "--heal-attempts", "1", "-v")

    sent = "\n".join(_sent(llm))
    for leaked in (SECRET, "DB_PASSWORD", "quokka"):
        assert leaked not in sent
    answers = [request["messages"][-1]["content"] for request in llm.requests[1:]]
    assert "`.env` cannot be shown: hidden files and folders" in answers[0]
    assert "cannot be shown: it lies outside the project root" in answers[1]
    assert "`settings_local.py` cannot be shown: hidden files" in answers[2]  # the link's target
    result.stdout.fnmatch_lines(
        [
            "HEALED test_square.py::test_square",  # a refusal is no failed attempt
            "  1 attempt · asked to see 3 definitions or files · *",
            "  asked to see 3 definitions or files: .env (refused), * (refused), "
            "settings_local.py (refused)",
        ]
    )


def test_a_model_that_only_asks_is_stopped_after_the_rounds_of_each_attempt(
    table: pytest.Pytester, llm: ScriptedServer
) -> None:
    def respond(body: dict[str, Any]) -> Any:
        return show_call("square")

    llm.responder = respond

    result = table.runpytest(*heal_args(llm), "--heal-attempts", "2")

    # Each attempt: its request, then one for each round of showing; no more.
    assert len(llm.requests) == 2 * (MAX_ROUNDS + 1)
    last_round = llm.requests[MAX_ROUNDS]["messages"][-1]["content"]
    assert "That was the last round of showing code before a fix: call `propose_fix` now." in (
        last_round
    )
    result.stdout.fnmatch_lines(
        [
            "NOT HEALED test_square.py::test_square: the reply asks to see more code after *",
            f"  2 attempts · asked to see {2 * MAX_ROUNDS} definitions · * tokens · *",
        ]
    )
