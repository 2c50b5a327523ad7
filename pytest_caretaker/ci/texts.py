"""The text of a session's results as CI reads it: redacted and printable, cut to a bound."""

from __future__ import annotations

from pytest_caretaker.record.redact import Redact
from pytest_caretaker.text import printable, short

MAX_TEXT = 4_000  # characters of a reason, an explanation, a note


class Texts:
    """Redacted, printable text of one session's results."""

    def __init__(self, redact: Redact) -> None:
        self.redact = redact

    def __call__(self, text: str, limit: int | None = MAX_TEXT) -> str:
        shown = self.redact(printable(text))
        return shown if limit is None else short(shown, limit)
