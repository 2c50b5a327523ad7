import pytest

from page_slice import page

ITEMS = list(range(25))


def test_the_first_page():
    assert page(ITEMS, 1) == list(range(10))


def test_the_last_page_is_short():
    assert page(ITEMS, 3) == [20, 21, 22, 23, 24]
    assert page(ITEMS, 2, per_page=20) == [20, 21, 22, 23, 24]


def test_past_the_last_page():
    assert page(ITEMS, 4) == []
    assert page([], 1) == []


def test_page_zero_is_refused():
    with pytest.raises(ValueError):
        page(ITEMS, 0)
