"""The commit message of a fix: a subject from its test id, the explanation, the tests, a trailer.

A test id can hold a secret (a password as a parametrize value), and a commit is published with
the branch, so every message is passed through the session's redaction: the test id before the
subject is shortened (a secret cut in half by the ``…`` would no longer be recognised), then the
whole message.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

from pytest_caretaker.results import Fix, HealResult

SUBJECT_WIDTH = 72
BODY_WIDTH = 72

#: Text in, text with every secret replaced out (record.redact.Redactor is one).
Redact = Callable[[str], str]


def _unchanged(text: str) -> str:
    return text


def subject(fix: Fix, redact: Redact = _unchanged) -> str:
    """``fix: heal <test id>``, shortened to fit a subject line."""
    nodeid = redact(fix.first.nodeid)
    more = f" (+{len(fix.results) - 1} more)" if len(fix.results) > 1 else ""
    line = f"fix: heal {nodeid}{more}"
    if len(line) > SUBJECT_WIDTH:
        path, _, name = nodeid.partition("::")
        line = f"fix: heal {Path(path).name}::{name}{more}" if name else line
    if len(line) > SUBJECT_WIDTH:
        line = line[: SUBJECT_WIDTH - 1 - len(more)] + "…" + more
    return line


def message(fix: Fix, redact: Redact = _unchanged, command: str | None = None) -> str:
    """The commit message: subject, explanation, the tests made to pass (or what command
    reported that it no longer reports), the figures, a trailer."""
    result = fix.first
    paragraphs = [subject(fix, redact)]
    if result.explanation:
        paragraphs.append(textwrap.fill(result.explanation, BODY_WIDTH))
    if result.notices:  # a judgement call on a test: whoever reads the log must see it
        lines = [
            textwrap.fill(n, BODY_WIDTH, initial_indent="- ", subsequent_indent="  ")
            for n in result.notices
        ]
        paragraphs.append("Changes what a test checks; review it:\n" + "\n".join(lines))
    tests = "\n".join(f"- {redact(nodeid)}" for nodeid in fix.nodeids)
    heading = "Makes this test pass:" if len(fix.results) == 1 else "Makes these tests pass:"
    if command is not None:
        heading = f"Fixes what `{redact(command)}` reported:"
    paragraphs.append(f"{heading}\n{tests}")
    patched = ", ".join(edit.ref for edit in result.edits if edit.kind != "import")
    figures = [f"Patched: {patched}", f"Model: {result.repairer}", _figures(result)]
    paragraphs.append("\n".join(figures))
    paragraphs.append(f"Healed-by: pytest-caretaker ({result.repairer})")
    # A partial revert undoes part of someone's commit: name it where `git log` and
    # `git interpret-trailers` find it. After redaction: a commit id is no secret, though it
    # looks like one.
    reverted = "".join(f"Reverts-part-of: {sha}\n" for sha in _reverts(fix) if _is_id(sha))
    return redact("\n\n".join(paragraphs) + "\n") + reverted


def _is_id(sha: str) -> bool:
    return len(sha) in (40, 64) and all(c in "0123456789abcdef" for c in sha)


def _reverts(fix: Fix) -> tuple[str, ...]:
    candidate = fix.first.candidate
    return candidate.reverts if candidate is not None else ()


def _figures(result: HealResult) -> str:
    spend = result.spend
    if result.via == "cache":
        return "From caretaker's cache: re-verified, no model asked"
    if spend.candidates:  # the built-in repairer's edits, not a model's rounds
        return f"Candidates tried: {spend.candidates:,} (no model, no tokens)"
    return f"Attempts: {spend.rounds} · tokens: {spend.tokens:,} · cost: ${spend.cost:.4f}"
