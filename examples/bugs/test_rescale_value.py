import pytest

from rescale_value import rescale


def test_inside_the_range():
    assert rescale(15, 10, 20) == 0.5
    assert rescale(12, 10, 20) == pytest.approx(0.2)


def test_a_range_not_from_its_own_length():
    assert rescale(3, 2, 6) == 0.25


def test_outside_the_range():
    assert rescale(5, 10, 20) == 0.0
    assert rescale(25, 10, 20) == 1.0


def test_an_empty_range():
    with pytest.raises(ValueError):
        rescale(1, 2, 2)
