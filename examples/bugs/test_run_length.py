from run_length import run_length_decode


def test_single_digit_counts():
    assert run_length_decode("3a2b") == "aaabb"
    assert run_length_decode("1x") == "x"


def test_nothing():
    assert run_length_decode("") == ""


def test_counts_of_ten_or_more():
    assert run_length_decode("12z") == "z" * 12
    assert run_length_decode("10a1b") == "a" * 10 + "b"
