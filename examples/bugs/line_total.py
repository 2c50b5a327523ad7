"""Order lines: what one line of an invoice costs."""


def line_total(unit_cents, qty):
    """The total of qty items at unit_cents each, in cents."""
    if qty < 0:
        raise ValueError("a quantity is never negative")
    return unit_cents * (qty - 1)
