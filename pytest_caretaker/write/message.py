"""The commit message of a fix: a subject from its test id, the explanation, the tests, a trailer.

An UNSURE fix (one the tests cannot tell from another; written only when review or
--heal-accept-unsure took it) says so in its subject, ``unsure: heal <test id>``, so that
``git log --oneline`` shows which commits the tests did not decide, and its body says why and on
which input the fix and the other differ.

A test id can hold a secret (a password as a parametrize value), and a commit is published with
the branch, so every message is passed through the session's redaction: the test id before the
subject is shortened (a secret cut in half by the ``…`` would no longer be recognised), then the
whole message.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

from pytest_caretaker.report.doubt import CANNOT_TELL, because, separating
from pytest_caretaker.results import Fix, HealResult

SUBJECT_WIDTH = 72
BODY_WIDTH = 72

#: Text in, text with every secret replaced out (record.redact.Redactor is one).
Redact = Callable[[str], str]


def _unchanged(text: str) -> str:
    return text


def subject(fix: Fix, redact: Redact = _unchanged) -> str:
    """``fix: heal <test id>`` (``unsure: heal <test id>`` for an UNSURE fix), shortened to fit
    a subject line."""
    nodeid = redact(fix.first.nodeid)
    more = f" (+{len(fix.results) - 1} more)" if len(fix.results) > 1 else ""
    kind = "unsure" if fix.unsure else "fix"
    line = f"{kind}: heal {nodeid}{more}"
    if len(line) > SUBJECT_WIDTH:
        path, _, name = nodeid.partition("::")
        line = f"{kind}: heal {Path(path).name}::{name}{more}" if name else line
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
    if result.candidate is not None and result.candidate.doubt is not None:
        paragraphs.append(_doubt(result, redact))
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


def _doubt(result: HealResult, redact: Redact) -> str:
    """Why the fix is UNSURE, and the input on which it and the other differ: what whoever
    reads the log needs to check it. Redacted before it is wrapped: a secret broken over two
    lines (at a hyphen) would no longer be recognised."""
    assert result.candidate is not None and result.candidate.doubt is not None
    doubt = result.candidate.doubt
    said = [f"UNSURE: {CANNOT_TELL}: {because(doubt.reason)}"]
    said += [f"Separating input: {separating(doubt)}"] if doubt.call else []
    return "\n".join(
        textwrap.fill(redact(line), BODY_WIDTH, subsequent_indent="  ", break_on_hyphens=False)
        for line in said
    )


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
