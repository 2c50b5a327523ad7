"""The sum of a number's decimal digits."""


def digit_sum(n):
    """Add up the digits of a non-negative integer: digit_sum(345) == 12."""
    if n < 0:
        raise ValueError("n must not be negative")
    total = 0
    while n > 0:
        total += n % 10
        n = n % 10
    return total
