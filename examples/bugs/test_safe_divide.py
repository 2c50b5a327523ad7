from safe_divide import safe_divide


def test_an_ordinary_division():
    assert safe_divide(6, 3) == 2
    assert safe_divide(1, 4) == 0.25


def test_a_zero_denominator_gives_the_default():
    assert safe_divide(5, 0) == 0.0


def test_a_custom_default():
    assert safe_divide(5, 0, default=None) is None
    assert safe_divide(0, 0, default=-1) == -1
