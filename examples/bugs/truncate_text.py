"""Shortening text for a narrow column."""


def truncate(text, limit):
    """text cut to at most `limit` characters, ending in "…" when something was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + "…"
