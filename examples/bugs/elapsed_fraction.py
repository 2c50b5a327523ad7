"""Progress of a subscription period."""

from datetime import date


def elapsed_fraction(start: date, today: date, end: date) -> float:
    """How much of the period from start to end has passed by today, from 0.0 to 1.0."""
    if (end - start).days <= 0:
        return 1.0
    return min(1.0, max(0.0, (today - start).days / (end - today).days))
