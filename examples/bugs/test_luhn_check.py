from luhn_check import luhn_valid


def test_a_valid_number():
    assert luhn_valid("79927398713")


def test_a_wrong_check_digit():
    assert not luhn_valid("79927398710")
    assert not luhn_valid("1234 5678 9012 3456")


def test_a_number_with_a_doubled_five():
    assert luhn_valid("4539 1488 0343 6467")
    assert luhn_valid("59")


def test_a_single_digit_is_never_valid():
    assert not luhn_valid("0")
