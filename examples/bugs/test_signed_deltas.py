from signed_deltas import deltas


def test_rising_readings():
    assert deltas([1, 3, 6]) == [2, 3]


def test_fewer_than_two_readings():
    assert deltas([5]) == []
    assert deltas([]) == []


def test_falling_readings_give_negative_changes():
    assert deltas([10, 7, 7, 9]) == [-3, 0, 2]
