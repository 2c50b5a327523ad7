"""Positions within a range."""


def rescale(value, low, high):
    """value's position from low (0.0) to high (1.0), clamped to that range."""
    if high - low <= 0:
        raise ValueError(f"empty range {low}..{high}")
    if value <= low:
        return 0.0
    if value >= high:
        return 1.0
    return (value - low) / (high - value)
