"""Running statistics over a series of readings."""


def running_max(values):
    """For each position, the largest value seen so far."""
    result = []
    current = None
    for value in values:
        if current is None or value > current:
            current = value
        result.append(value)
    return result
