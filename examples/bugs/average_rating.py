"""Summaries of star ratings."""


def average_rating(ratings):
    """The mean of the ratings rounded to one decimal place, or None when there are none."""
    if not ratings:
        return None
    return round(sum(ratings) // len(ratings), 1)
