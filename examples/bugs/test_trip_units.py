import pytest

from trip_units import describe, to_metres


def test_nothing():
    assert to_metres(0) == 0


@pytest.mark.parametrize(("km", "metres"), [(1, 1000), (2.5, 2500), (42, 42000)])
def test_to_metres(km, metres):
    assert to_metres(km) == metres


def test_a_short_trip_in_metres():
    assert describe(0) == "0 m"
