"""Card number checksums."""


def luhn_valid(number):
    """Whether a card number (digits, spaces allowed) passes the Luhn checksum."""
    digits = [int(ch) for ch in number.replace(" ", "")]
    if len(digits) < 2:
        return False
    total = 0
    for index, digit in enumerate(reversed(digits)):
        if index % 2 == 1:
            digit *= 2
            if digit > 10:
                digit -= 9
        total += digit
    return total % 10 == 0
