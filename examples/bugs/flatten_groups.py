"""Flattening grouped results."""


def flatten(groups):
    """The items of every group, in order, as one list."""
    flat = []
    for group in groups:
        flat = []
        for item in group:
            flat.append(item)
    return flat
