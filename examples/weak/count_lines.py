"""Counting the lines of a text."""


def count_lines(text: str) -> int:
    """How many lines text has: lines are separated by newlines, and the last one need not
    end in one. An empty text has no lines."""
    if not text:
        return 0
    breaks = sum(1 for ch in text if ch == "\n")
    return breaks
