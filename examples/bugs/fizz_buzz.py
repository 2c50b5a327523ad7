"""The classic counting game."""


def fizzbuzz(n):
    """Fizz for multiples of 3, Buzz for multiples of 5, FizzBuzz for both, else the number."""
    if n % 3 == 0:
        return "Fizz"
    if n % 5 == 0:
        return "Buzz"
    if n % 15 == 0:
        return "FizzBuzz"
    return str(n)
