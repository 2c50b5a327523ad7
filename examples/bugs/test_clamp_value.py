import pytest

from clamp_value import clamp


def test_a_value_inside_the_range_is_unchanged():
    assert clamp(5, 0, 10) == 5
    assert clamp(0.25, 0, 1) == 0.25


def test_a_value_above_the_range_is_capped():
    assert clamp(15, 0, 10) == 10


def test_a_value_below_the_range_is_raised_to_low():
    assert clamp(-3, 0, 10) == 0
    assert clamp(-0.5, 0, 10) == 0


def test_the_bounds_themselves_are_kept():
    assert clamp(0, 0, 10) == 0
    assert clamp(10, 0, 10) == 10


def test_inverted_bounds_are_rejected():
    with pytest.raises(ValueError):
        clamp(1, 10, 0)
