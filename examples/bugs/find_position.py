"""Where a value sits in a sorted list, by binary search."""


def find_position(items, value):
    """The index of value in the sorted list items, or -1 when it is not there."""
    low, high = 0, len(items) - 1
    while low <= high:
        middle = (low + high) // 2
        if items[middle] == value:
            return middle
        if items[middle] < value:
            low = middle
        else:
            high = middle - 1
    return -1
