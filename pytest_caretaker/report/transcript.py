"""Transcripts: one Markdown file per failure under ``.caretaker/transcripts/``.

What was asked, what came back, what it was turned into, how verification went and the verdict,
so that a fix (or a failure to find one) can be audited after the run. The folder is caretaker's
own: each session replaces the transcripts of the previous one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_caretaker.results import Failure, HealResult

FOLDER = "transcripts"
MAX_BLOCK = 20_000  # characters of one quoted block; the rest is cut with a note


def _fence(text: str, language: str = "") -> str:
    if len(text) > MAX_BLOCK:
        text = text[:MAX_BLOCK] + f"\n… ({len(text) - MAX_BLOCK:,} more characters cut)"
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


@dataclass
class Transcript:
    nodeid: str
    sections: list[str] = field(default_factory=list)

    def add(self, title: str, text: str = "", code: str | None = None, language: str = "") -> None:
        parts = [f"## {title}"]
        if text:
            parts.append(text)
        if code is not None:
            parts.append(_fence(code, language))
        self.sections.append("\n\n".join(parts))

    def prompt(self, messages: Sequence[Mapping[str, Any]]) -> None:
        for message in messages:
            self.add(f"Prompt: {message.get('role', '?')}", code=str(message.get("content", "")))

    def render(self, failure: Failure | None, result: HealResult) -> str:
        verdict = "HEALED" if result.healed else "NOT HEALED"
        lines = [f"# {verdict} {result.nodeid}", ""]
        if result.from_cache:
            lines.append("- from the cache of earlier runs, re-verified; no model asked")
        if not result.healed:
            lines.append(f"- reason: {result.reason}")
        lines += [
            f"- model: {result.model or '(none)'}",
            f"- attempts: {result.attempts}",
            f"- tokens: {result.prompt_tokens:,} prompt + {result.completion_tokens:,} completion",
            f"- cost: ${result.cost:.4f}",
            f"- time: {result.seconds:.2f} s",
        ]
        head = "\n".join(lines)
        parts = [head]
        if failure is not None:
            parts.append(
                "## The failure\n\n"
                + _fence(f"{failure.exc_type}: {failure.message}")
                + "\n\n"
                + _fence(failure.longrepr)
            )
        parts += self.sections
        if result.healed:
            from pytest_caretaker.apply.rewrite import unified_diff

            diff = b"".join(unified_diff(applied) for applied in result.applied)
            parts.append("## The fix\n\n" + _fence(diff.decode("utf-8", "replace"), "diff"))
        return "\n\n".join(parts) + "\n"


def file_name(nodeid: str) -> str:
    """A file name for a test id: readable, unique enough, and safe on every file system."""
    import hashlib

    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_.")[:80]
    return f"{slug}-{hashlib.sha256(nodeid.encode()).hexdigest()[:8]}.md"


def write_all(folder: Path, rendered: Mapping[str, str]) -> Path | None:
    """Replace the transcripts in folder by rendered (test id -> Markdown)."""
    target = folder / FOLDER
    if target.is_dir():
        for old in target.glob("*.md"):
            old.unlink(missing_ok=True)
    if not rendered:
        return None
    target.mkdir(parents=True, exist_ok=True)
    for nodeid, text in rendered.items():
        (target / file_name(nodeid)).write_text(text, encoding="utf-8")
    return target
