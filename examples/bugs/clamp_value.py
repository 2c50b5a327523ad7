"""Keep a number inside a range."""


def clamp(value, low, high):
    """Limit value to the closed interval [low, high]."""
    if low > high:
        raise ValueError("low must not be greater than high")
    if value < low:
        return low
    if value < high:
        return high
    return value
