from clamp_range import clamp


def test_a_value_inside_the_range_is_kept():
    assert clamp(5, 0, 10) == 5
    assert clamp(0.25, 0, 1) == 0.25


def test_a_value_below_the_range_is_raised_to_low():
    assert clamp(-3, 0, 10) == 0
