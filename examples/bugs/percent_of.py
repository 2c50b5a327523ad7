"""Percentages for a report."""


def percent_of(part, whole):
    """part as a percentage of whole, rounded to two decimal places."""
    if whole == 0:
        raise ValueError("whole must not be zero")
    return round(part / whole * 100, 1)
