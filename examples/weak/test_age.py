from datetime import date

import pytest

from age import age


def test_before_the_birthday_in_the_year():
    assert age(date(1990, 6, 15), date(2024, 3, 1)) == 33


def test_after_the_birthday_in_the_year():
    assert age(date(1990, 6, 15), date(2024, 9, 1)) == 34


def test_born_in_the_future_is_refused():
    with pytest.raises(ValueError):
        age(date(2030, 1, 1), date(2024, 1, 1))
