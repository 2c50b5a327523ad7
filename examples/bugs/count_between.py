"""Counting values in an interval."""


def count_between(values, low, high):
    """How many values lie in the half-open interval [low, high)."""
    count = 0
    for value in values:
        if low <= value <= high:
            count += 1
    return count
