from insertion_point import insertion_point


def test_between_two_items():
    assert insertion_point([1, 3, 5, 7], 4) == 2
    assert insertion_point([10, 20, 30, 40, 50], 45) == 4
    assert insertion_point([0.5, 1.0, 1.5], 1.25) == 2


def test_before_the_first_and_after_the_last():
    assert insertion_point([1, 3, 5], 0) == 0
    assert insertion_point([1, 3, 5], 9) == 3
    assert insertion_point([], 4) == 0


def test_goes_before_equal_items():
    assert insertion_point([1, 3, 3, 3, 5], 3) == 1
    assert insertion_point([2, 2], 2) == 0
