"""Calendar arithmetic."""


def days_in_month(year, month):
    """The number of days in `month` (1-12) of `year` in the Gregorian calendar."""
    if not 1 <= month <= 12:
        raise ValueError(f"no month {month}")
    if month == 2:
        return 28
    if month in (4, 6, 9, 11):
        return 30
    return 31
