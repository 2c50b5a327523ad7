"""How many steps the Collatz walk takes from n down to 1."""


def collatz_steps(n):
    """Halve an even number, take an odd one to 3n + 1; count the steps until 1.

    >>> collatz_steps(6)
    8
    """
    if n < 1:
        raise ValueError("n must be positive")
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n - 1
        steps += 1
    return steps
