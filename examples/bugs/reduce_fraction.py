"""Fractions in lowest terms."""


def _gcd(a, b):
    while b:
        a, b = b, a // b
    return abs(a)


def reduce_fraction(numerator, denominator):
    """The fraction in lowest terms as (numerator, denominator), with a positive denominator."""
    if denominator == 0:
        raise ZeroDivisionError("the denominator is zero")
    divisor = _gcd(numerator, denominator)
    if denominator < 0:
        divisor = -divisor
    return numerator // divisor, denominator // divisor
