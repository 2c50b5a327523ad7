"""Opening hours of a shop."""


def _within(value, start, end):
    return start <= value < end


def is_open(hour, opening=9, closing=17):
    """Whether the shop is open at `hour` (open from `opening`, closed from `closing`)."""
    return _within(opening, hour, closing)
