from average_rating import average_rating


def test_equal_ratings():
    assert average_rating([4, 4, 4]) == 4.0
    assert average_rating([2]) == 2.0


def test_no_ratings():
    assert average_rating([]) is None


def test_a_fractional_mean():
    assert average_rating([4, 5]) == 4.5


def test_the_mean_is_rounded_to_one_decimal():
    assert average_rating([5, 4, 4]) == 4.3
