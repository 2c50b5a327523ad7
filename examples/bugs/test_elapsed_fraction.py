from datetime import date

from elapsed_fraction import elapsed_fraction


def test_a_quarter_of_the_period():
    assert elapsed_fraction(date(2024, 1, 1), date(2024, 1, 11), date(2024, 2, 10)) == 0.25


def test_before_the_start_and_after_the_end():
    assert elapsed_fraction(date(2024, 1, 1), date(2023, 12, 1), date(2024, 2, 1)) == 0.0
    assert elapsed_fraction(date(2024, 1, 1), date(2024, 3, 1), date(2024, 2, 1)) == 1.0


def test_an_empty_period():
    assert elapsed_fraction(date(2024, 1, 1), date(2024, 1, 1), date(2024, 1, 1)) == 1.0
