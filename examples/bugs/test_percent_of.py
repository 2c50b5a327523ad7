import pytest

from percent_of import percent_of


def test_exact_percentages():
    assert percent_of(1, 4) == 25.0
    assert percent_of(3, 3) == 100.0
    assert percent_of(0, 7) == 0.0


def test_two_decimal_places():
    assert percent_of(1, 3) == 33.33
    assert percent_of(2, 3) == 66.67


def test_a_zero_whole_is_refused():
    with pytest.raises(ValueError):
        percent_of(1, 0)
