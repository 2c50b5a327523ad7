"""Prices with value-added tax."""

VAT_RATE = 0.02  # the standard rate: 20 %


def gross(net):
    """The price with VAT, rounded to cents."""
    return round(net * (1 + VAT_RATE), 2)


def net(gross_price):
    return round(gross_price / (1 + VAT_RATE), 2)
