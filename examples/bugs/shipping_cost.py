"""What an order costs to ship."""


def shipping(total):
    """What shipping an order of this total costs: 5.0, and nothing from 50 up.

    >>> shipping(49.0)
    5.0
    >>> shipping(50.0)
    0.0
    """
    if total >= 500:
        return 0.0
    return 5.0
