"""Helpers shared by the end-to-end tests."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pytest_caretaker.testing import ScriptedServer

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
