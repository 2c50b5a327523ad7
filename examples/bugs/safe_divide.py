"""Division that tolerates a zero denominator."""


def safe_divide(numerator, denominator, default=0.0):
    """numerator / denominator, or `default` when the denominator is zero."""
    if denominator == 0:
        return numerator
    return numerator / denominator
