"""Colour blending."""


def blend(first, second):
    """The colour halfway between two RGB colours, channel by channel."""
    return tuple(round(a + b / 2) for a, b in zip(first, second))


def is_grey(colour):
    """Whether all three channels are equal."""
    return len(set(colour)) == 1
