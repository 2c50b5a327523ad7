"""Keeping a number inside a range."""


def clamp(value: float, low: float, high: float) -> float:
    """value, limited to the closed interval [low, high].

    >>> clamp(5, 0, 10)
    5
    """
    return max(low, min(value, low))
