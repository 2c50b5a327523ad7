"""Small words of the report (#31 item 8): a local model's cost reads "local", a reason cut to
fit ends after a whole word, and the models found locally are the ones so named."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_caretaker.llm.capabilities import is_local
from pytest_caretaker.llm.models import local_models
from pytest_caretaker.report.summary import closing_line, stats
from pytest_caretaker.results import Candidate, HealResult, Spend
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.text import short

SPENT = Spend(rounds=1, prompt_tokens=100, completion_tokens=20, seconds=1.0)
LOCAL = "ollama_chat/qwen2.5-coder:7b"
PAID = "openai/gpt-4o-mini"


def result(model: str, spend: Spend = SPENT) -> HealResult:
    return HealResult(f"t::{model}", Candidate((), ()), spend=spend, repairer=model)


def test_a_local_models_cost_reads_local() -> None:
    assert stats(result(LOCAL), {LOCAL}) == f"1 attempt · 120 tokens · local · 1.0 s · {LOCAL}"
    paid = result(PAID, Spend(rounds=1, prompt_tokens=100, cost=0.0003, seconds=1.0))
    assert stats(paid, {LOCAL}) == f"1 attempt · 100 tokens · $0.0003 · 1.0 s · {PAID}"
    # A model not known to be local that cost nothing (a free tier) still says $0.
    assert "$0.0000" in stats(result(PAID), {LOCAL})


def test_the_closing_line_says_local_only_when_every_model_that_spent_was(tmp_path: Path) -> None:
    local_only = [result(LOCAL), HealResult("t::b", reason="no fix")]
    assert closing_line(local_only, None, tmp_path, (), {LOCAL}).endswith("120 tokens · local")
    mixed = [result(LOCAL), result(PAID)]
    assert closing_line(mixed, None, tmp_path, (), {LOCAL}).endswith("240 tokens · $0.0000")
    assert closing_line(local_only, None, tmp_path).endswith("120 tokens · $0.0000")


@pytest.mark.parametrize(
    ("model", "api_base", "local"),
    [
        ("ollama_chat/qwen2.5-coder:7b", None, True),
        ("ollama/llama3", "http://gpu-box:11434", True),  # the user's own server: no price
        ("openai/served", "http://127.0.0.1:8000/v1", True),
        ("openai/served", "http://localhost:8000/v1", True),
        ("openai/served", "http://[::1]:8000/v1", True),
        ("openai/gpt-4o-mini", None, False),
        ("openai/served", "https://api.example.com/v1", False),
    ],
)
def test_which_models_are_local(model: str, api_base: str | None, local: bool) -> None:
    assert is_local(model, api_base) is local


def test_local_models_of_a_chain() -> None:
    settings = Settings(models=(BUILTIN, LOCAL, PAID))
    assert local_models(settings, {}) == {LOCAL}
    served = Settings(models=("openai/served",), api_base="http://127.0.0.1:8000/v1")
    assert local_models(served, {}) == {"openai/served"}


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short enough", 20, "short enough"),
        ("a model may find a larger fix: --heal-model", 30, "a model may find a larger…"),
        ("the budget: spent", 14, "the budget…"),  # no colon left dangling
        ("onewordthatislongerthanthelimit", 10, "onewordth…"),  # no space to cut at
        ("ab cdefghijklmnopqrstuvwxyz", 12, "ab cdefghij…"),  # a cut word beats a tiny line
    ],
)
def test_short_ends_after_a_whole_word(text: str, limit: int, expected: str) -> None:
    cut = short(text, limit)
    assert cut == expected
    assert len(cut) <= limit
