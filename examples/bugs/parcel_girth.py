"""Parcels: the size the courier charges by."""

from dataclasses import dataclass


@dataclass
class Parcel:
    length: float
    width: float
    height: float


def girth(parcel):
    """The length plus twice the sum of the other two sides (the courier's size rule)."""
    return parcel.length + 2 * parcel.width + 2 * parcel.depth


def oversized(parcel, limit=300):
    return girth(parcel) > limit
