from valid_username import is_valid_username


def test_letters_digits_and_underscores_are_accepted():
    assert is_valid_username("alice_1")
    assert is_valid_username("Bob")


def test_too_short_or_too_long_is_rejected():
    assert not is_valid_username("ab")
    assert not is_valid_username("a" * 17)


def test_a_leading_digit_is_rejected():
    assert not is_valid_username("1alice")


def test_punctuation_is_rejected():
    assert not is_valid_username("alice!")
    assert not is_valid_username("al ice")
