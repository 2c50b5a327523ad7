"""Numbers written in another base."""

DIGITS = "0123456789ABCDEF"


def to_base(number, base):
    """number (0 or more) written in base (2 to 16): to_base(31, 16) == "1F"."""
    if number == 0:
        return "0"
    result = ""
    while number > 0:
        number, digit = divmod(number, base)
        result = result + DIGITS[digit]
    return result
