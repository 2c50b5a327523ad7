"""Binary search in a sorted list."""


def insertion_point(sorted_items, target):
    """The first index where target can be inserted to keep the list sorted (before equal items)."""
    lo, hi = 0, len(sorted_items)
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_items[mid] <= target:
            lo = mid + 1
        else:
            hi = mid
    return lo
