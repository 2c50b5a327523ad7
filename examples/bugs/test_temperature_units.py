import pytest

from temperature_units import to_celsius, to_fahrenheit


def test_to_fahrenheit():
    assert to_fahrenheit(100) == 212
    assert to_fahrenheit(-40) == -40


def test_to_celsius():
    assert to_celsius(212) == 100
    assert to_celsius(32) == 0
    assert to_celsius(98.6) == pytest.approx(37)


def test_minus_forty_is_the_same_on_both_scales():
    assert to_celsius(-40) == -40
