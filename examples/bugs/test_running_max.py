from running_max import running_max


def test_an_increasing_series_is_its_own_running_max():
    assert running_max([1, 2, 5]) == [1, 2, 5]


def test_no_values():
    assert running_max([]) == []


def test_the_maximum_is_carried_forward():
    assert running_max([3, 1, 4, 1, 5]) == [3, 3, 4, 4, 5]
    assert running_max([2, 2, 1]) == [2, 2, 2]
