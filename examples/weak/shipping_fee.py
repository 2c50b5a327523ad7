"""What shipping an order costs."""

FEE = 4.95


def shipping_fee(total):
    """The shipping fee of an order: FEE below 50.00, free from 50.00 up."""
    if total < 49:
        return FEE
    return 0.0
