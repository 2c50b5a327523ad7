"""Helpers shared by the end-to-end tests."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pytest_caretaker.testing import ScriptedServer

#: The end-to-end tests' usual project: mean() divides by one too many; test_total passes.
CALC = """\
def total(xs):
    result = 0
    for x in xs:
        result += x
    return result


def mean(xs):
    return total(xs) / (len(xs) + 1)
"""
TEST_CALC = """\
from calc import mean, total


def test_total():
    assert total([1, 2, 3]) == 6


def test_mean():
    assert mean([1, 2, 3]) == 2
"""
GOOD_MEAN = "def mean(xs):\n    return total(xs) / len(xs)\n"

TOOLS_MODEL = "openai/gpt-4o-mini"  # litellm knows it supports tool calling
TEXT_MODEL = "openai/caretaker-scripted-text"  # unknown to litellm: the plain-text format


def heal_args(server: ScriptedServer, model: str = TOOLS_MODEL, *more: str) -> list[str]:
    return ["--heal", "--heal-model", model, "--heal-api-base", server.base_url, *more]


def snapshot(root: Path) -> dict[str, str]:
    """SHA-256 of every file under root but pytest's caches and caretaker's output folder."""
    skipped = {"__pycache__", ".pytest_cache", ".caretaker", ".git"}
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not skipped.intersection(path.relative_to(root).parts)
    }
