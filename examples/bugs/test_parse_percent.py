from parse_percent import parse_percent


def test_a_plain_number():
    assert parse_percent("45") == 0.45


def test_a_whole_share():
    assert parse_percent("100") == 1.0


def test_not_a_number():
    assert parse_percent("most") is None


def test_more_than_a_hundred_percent():
    assert parse_percent("150%") is None
