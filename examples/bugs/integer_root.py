"""Integer square roots by bisection."""


def integer_root(n):
    """The largest r with r * r <= n."""
    if n < 0:
        raise ValueError("no real root")
    low, high = 0, n + 1
    while high - low > 0:
        middle = (low + high) // 2
        if middle * middle <= n:
            low = middle
        else:
            high = middle
    return low
