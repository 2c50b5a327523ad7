"""Progress labels."""


def percent_label(done, total):
    """'42%' for 42 of 100; an empty job is complete."""
    if total == 0:
        return "100%"
    return "%" + f"{done / total * 100:.0f}"


def finished(done, total):
    return done >= total
