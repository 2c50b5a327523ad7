"""Amounts typed by people: "12.50", "12,50" or "7"."""


def parse_amount(text):
    """The amount as a float; None when text is not an amount or the amount is negative."""
    try:
        return float(text.replace(",", "."))
    except ValueError:
        return None
