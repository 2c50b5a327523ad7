import pytest

from median_value import median


def test_a_single_value():
    assert median([7]) == 7


def test_an_odd_count_already_sorted():
    assert median([1, 2, 3]) == 2


def test_an_odd_count_unsorted():
    assert median([3, 1, 2]) == 2


def test_an_even_count():
    assert median([4, 1, 3, 2]) == 2.5


def test_no_values():
    with pytest.raises(ValueError):
        median([])
