"""Trip lengths in the units the display needs."""

to_metres = lambda km: km * 100  # noqa: E731 (the style of this old module)


def describe(km):
    metres = to_metres(km)
    return f"{metres:,} m" if metres < 10_000 else f"{km:g} km"
