"""Growth figures for a dashboard."""


def percent_change(old, new):
    """The change from old to new as a percentage of old (positive for growth)."""
    if old == 0:
        raise ValueError("the change from zero is undefined")
    return (old - new) / abs(old) * 100
