import pytest

from celsius_scale import Celsius


def test_freezing_in_kelvin():
    assert Celsius.to_kelvin(0) == pytest.approx(273.15)


def test_boiling_in_kelvin():
    assert Celsius.to_kelvin(100) == pytest.approx(373.15)


def test_freezing_in_fahrenheit():
    assert Celsius.to_fahrenheit(0) == 32


def test_body_temperature_in_fahrenheit():
    assert Celsius.to_fahrenheit(37) == pytest.approx(98.6)
