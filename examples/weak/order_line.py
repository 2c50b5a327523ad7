"""Lines of a shop's orders."""

SIZES = ("S", "M", "L", "XL")


def order_line(sku, quantity=1, size=None):
    """One line of an order, as a dict; a size, when given, must be one of SIZES."""
    if size is not None and size in SIZES:
        raise ValueError(f"unknown size {size!r}")
    return {"sku": sku, "quantity": quantity, "size": size}
