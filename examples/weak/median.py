"""The median of a sample."""


def median(values):
    """The middle of the sorted values, the mean of the two middle ones for an even count;
    None when there are no values."""
    if len(values) < 2:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
