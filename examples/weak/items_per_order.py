"""Figures for the shop's weekly report."""


def items_per_order(shipped: int, returned: int, orders: int) -> float:
    """The mean number of items an order kept: items shipped less those sent back, per
    order (0.0 when there were no orders)."""
    if orders == 0:
        return 0.0
    return (shipped + returned) / orders
