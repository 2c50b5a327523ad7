import pytest

from integer_root import integer_root

pytestmark = pytest.mark.timeout(1)  # the bug makes the search loop forever


def test_a_negative_number_has_no_root():
    with pytest.raises(ValueError):
        integer_root(-1)


def test_a_square():
    assert integer_root(49) == 7


def test_between_squares():
    assert integer_root(50) == 7
    assert integer_root(63) == 7
