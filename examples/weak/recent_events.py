"""The tail of an event log."""


def recent(events, count=3):
    """The count most recent events, oldest first (events are listed in the order they
    happened); all of them when there are no more than count."""
    start = len(events) - count
    if start <= 0:
        return list(events)
    return events[count:]
