from parse_amount import parse_amount


def test_a_whole_number():
    assert parse_amount("7") == 7.0


def test_not_a_number():
    assert parse_amount("twelve") is None


def test_a_negative_amount_with_a_comma():
    assert parse_amount("-3,50") is None
