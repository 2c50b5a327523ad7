from calc import add, last, mean


def test_add():
    assert add(2, 3) == 5


def test_add_zero():
    assert add(4, 0) == 4


def test_last():
    assert last([1, 2, 3]) == 3


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_arithmetic():
    # The bug is in the test itself: with --heal-scope code (the default) it is not healed.
    assert 1 + 1 == 3
