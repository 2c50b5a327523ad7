"""The longest run of equal values in a sequence."""


def longest_streak(values):
    """(value, length) of the longest run of equal neighbours; the first such run on a tie."""

    def same(a, b):
        return a != b

    best_value, best_length = None, 0
    length = 0
    for index, value in enumerate(values):
        length = length + 1 if index and same(values[index - 1], value) else 1
        if length > best_length:
            best_value, best_length = value, length
    return best_value, best_length
