"""Changes between consecutive meter readings."""

from itertools import pairwise


def deltas(values):
    """The change between each pair of consecutive values (later minus earlier)."""
    changes = []
    for earlier, later in pairwise(values):
        change = later - earlier
        changes.append(abs(change))
    return changes
