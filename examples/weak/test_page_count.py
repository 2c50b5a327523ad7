import pytest

from page_count import page_count


def test_a_short_last_page():
    assert page_count(25, 10) == 3


def test_fewer_results_than_a_page():
    assert page_count(7, 10) == 1


def test_no_room_on_a_page_is_refused():
    with pytest.raises(ValueError):
        page_count(10, 0)
