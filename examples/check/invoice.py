"""Invoice arithmetic."""


def discounted(price, percent):
    """price less percent per cent."""
    return price * (1 + percent / 100)


def total(lines):
    """The sum of quantity × unit price over the lines."""
    return sum(quantity * price for quantity, price in lines[1:])
