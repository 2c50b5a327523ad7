import pytest

from percent_change import percent_change


def test_growth_is_positive():
    assert percent_change(100, 150) == 50.0


def test_a_decline_is_negative():
    assert percent_change(80, 60) == -25.0
    assert percent_change(-50, -75) == -50.0


def test_no_change():
    assert percent_change(42, 42) == 0


def test_a_change_from_zero_is_refused():
    with pytest.raises(ValueError):
        percent_change(0, 5)
