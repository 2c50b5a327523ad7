from count_between import count_between


def test_the_upper_bound_is_excluded():
    assert count_between([1, 2, 3, 4, 5], 2, 5) == 3


def test_an_empty_interval_counts_nothing():
    assert count_between([5, 5], 5, 5) == 0


def test_the_lower_bound_is_included():
    assert count_between([2, 3, 7], 2, 5) == 2
    assert count_between([0.5, 1.0, 1.5], 1, 2) == 2


def test_no_values():
    assert count_between([], 0, 10) == 0
