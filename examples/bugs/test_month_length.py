import pytest

from month_length import days_in_month


def test_long_and_short_months():
    assert days_in_month(2023, 1) == 31
    assert days_in_month(2023, 4) == 30
    assert days_in_month(2023, 12) == 31


def test_february_in_a_common_year():
    assert days_in_month(2023, 2) == 28
    assert days_in_month(1900, 2) == 28


def test_february_in_a_leap_year():
    assert days_in_month(2024, 2) == 29
    assert days_in_month(2000, 2) == 29


def test_no_month_thirteen():
    with pytest.raises(ValueError):
        days_in_month(2023, 13)
