import pytest

from find_position import find_position

pytestmark = pytest.mark.timeout(1)  # the bug stops the search moving right: it loops forever

ITEMS = [2, 3, 5, 7, 11, 13, 17, 19]


def test_an_empty_list():
    assert find_position([], 4) == -1


def test_the_middle_item():
    assert find_position(ITEMS, 7) == 3


@pytest.mark.parametrize("value", [11, 12, 19, 20, 23])
def test_items_right_of_the_middle(value):
    expected = ITEMS.index(value) if value in ITEMS else -1
    assert find_position(ITEMS, value) == expected
