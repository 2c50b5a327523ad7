"""The one-line helpers every stage words its messages with: counts, cut text, where an error was.

Standard library only, and nothing of the package: any stage may use these.
"""

from __future__ import annotations

import traceback
from pathlib import Path


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 test``, ``3 tests``, ``2 fixes`` (with many)."""
    return f"{count:,} {word}" if count == 1 else f"{count:,} {many or word + 's'}"


def short(text: str, limit: int = 160) -> str:
    """text cut to limit characters, with an ellipsis when it was cut: after a whole word when
    one ends in the second half of what is kept."""
    if len(text) <= limit:
        return text
    kept = text[: limit - 1]
    space = kept.rfind(" ")
    if space > limit // 2:
        kept = kept[:space].rstrip(" ,;:(")
    return kept + "…"


def printable(text: str) -> str:
    """text with what a non-UTF-8 file name left in it (lone surrogates) shown as U+FFFD, so that
    a UTF-8 file or JSON can hold it."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate no file name leaves: not from the file system
        return text.encode("utf-8", "replace").decode("utf-8")


def where(error: BaseException) -> str:
    """``" at file:line"`` of the innermost frame that raised error, for a report of the bug."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    return f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}"
