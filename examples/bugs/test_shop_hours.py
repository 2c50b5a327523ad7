from shop_hours import is_open


def test_open_at_midday():
    assert is_open(12)


def test_closed_at_night():
    assert not is_open(3)
    assert not is_open(20)


def test_opening_hour_is_open_closing_hour_is_not():
    assert is_open(9)
    assert not is_open(17)


def test_custom_hours():
    assert is_open(22, opening=18, closing=23)
