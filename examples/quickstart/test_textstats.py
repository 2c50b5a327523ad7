from textstats import moving_average


def test_moving_average():
    assert moving_average([1, 2, 3, 4], 2) == [1.5, 2.5, 3.5]


def test_moving_average_of_nothing():
    assert moving_average([], 3) == []
