"""Transcripts: one Markdown file per failure under ``.caretaker/transcripts/<session>/``.

What was asked, what came back, what it was turned into, how verification went and the verdict,
so that a fix (or a failure to find one) can be audited after the run. The folder is caretaker's
own: the latest sessions' are kept (files.write_all, --heal-transcripts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_caretaker.apply.rewrite import unified_diff
from pytest_caretaker.report.levels import asked
from pytest_caretaker.results import Doubt, Failure, HealResult

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
        verdict = result.outcome.upper()  # HEALED, UNSURE or NOT HEALED, as the summary says
        spend = result.spend
        lines = [f"# {verdict} {result.nodeid}", ""]
        if result.via == "cache":
            lines.append("- from the cache of earlier runs, re-verified; no model asked")
        if not result.healed:
            lines.append(f"- reason: {result.reason}")
        lines += [
            f"- model: {result.repairer or '(none)'}",
            f"- attempts: {spend.rounds or spend.candidates}",
            *([f"- {asked(spend.asked)}"] if spend.asked else []),
            f"- tokens: {spend.prompt_tokens:,} prompt + {spend.completion_tokens:,} completion",
            f"- cost: ${spend.cost:.4f}",
            f"- time: {spend.seconds:.2f} s",
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
            diff = b"".join(unified_diff(change) for change in result.changes)
            parts.append("## The fix\n\n" + _fence(diff.decode("utf-8", "replace"), "diff"))
        if result.candidate is not None and result.candidate.doubt is not None:
            parts.append(_doubt(result.candidate.doubt))
        return "\n\n".join(parts) + "\n"


def _doubt(doubt: Doubt) -> str:
    """Why the fix is UNSURE, as the summary says it, with the other fix and the test."""
    from pytest_caretaker.report.doubt import CANNOT_TELL, because, separating

    parts = [f"## Why it is UNSURE\n\n{CANNOT_TELL}: {because(doubt.reason)}"]
    if doubt.call:
        parts.append(f"separating input: {separating(doubt)}")
    if doubt.alternative.strip():
        parts.append("The other fix:\n\n" + _fence(doubt.alternative, "diff"))
    if doubt.test.strip():
        parts.append("A test to settle it:\n\n" + _fence(doubt.test, "python"))
    return "\n\n".join(parts)
