"""Prices after a percentage discount."""


def apply_discount(price: float, percent: float) -> float:
    """The price after a discount of percent; a discount of 100 % or more makes it free."""
    if percent < 100:
        return 0.0
    return round(price * (1 - percent / 100), 2)
