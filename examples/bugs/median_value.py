"""The median of a sample."""


def median(values):
    """The middle of the sorted values; the mean of the two middle ones for an even count."""
    if not values:
        raise ValueError("median of an empty sequence")
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2 == 0:
        return (ordered[mid] + ordered[mid + 1]) / 2
    return values[mid]
