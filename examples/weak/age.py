"""A person's age on a given day."""

from datetime import date


def age(born: date, today: date) -> int:
    """Completed years between born and today: one more on each birthday."""
    if born > today:
        raise ValueError("born after today")
    years = today.year - born.year
    if (today.month, today.day) > (born.month, born.day):
        years -= 1
    return years
