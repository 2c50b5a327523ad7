"""Order lines: {"name": ..., "price": ..., "qty": ...} dictionaries."""


def describe(line):
    return f'{line["qty"]} x {line["name"]}'


def line_total(line):
    return line["price"] * line["qty"]


def order_total(lines):
    """The sum of price times quantity over the lines, rounded to cents."""
    return round(sum(line["price"] * line["quantity"] for line in lines), 2)
