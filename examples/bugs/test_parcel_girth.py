import pytest

from parcel_girth import Parcel, girth, oversized


def test_a_cube():
    assert girth(Parcel(10, 10, 10)) == 50


@pytest.mark.parametrize(
    ("sides", "expected"), [((40, 20, 10), 100), ((100, 30, 50), 260), ((5, 1, 2), 11)]
)
def test_a_box(sides, expected):
    assert girth(Parcel(*sides)) == expected


def test_a_long_parcel_is_oversized():
    assert oversized(Parcel(250, 10, 40))


def test_a_small_parcel_is_not_oversized():
    assert not oversized(Parcel(10, 10, 10))


def test_a_parcel_knows_its_sides():
    assert Parcel(1, 2, 3).height == 3
