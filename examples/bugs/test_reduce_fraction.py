import pytest

from reduce_fraction import reduce_fraction


def test_common_factors_are_cancelled():
    assert reduce_fraction(6, 8) == (3, 4)
    assert reduce_fraction(21, 14) == (3, 2)


def test_a_whole_number():
    assert reduce_fraction(9, 3) == (3, 1)
    assert reduce_fraction(4, 2) == (2, 1)


def test_zero():
    assert reduce_fraction(0, 5) == (0, 1)


def test_the_sign_moves_to_the_numerator():
    assert reduce_fraction(-4, -2) == (2, 1)
    assert reduce_fraction(2, -4) == (-1, 2)


def test_a_zero_denominator_is_refused():
    with pytest.raises(ZeroDivisionError):
        reduce_fraction(1, 0)
