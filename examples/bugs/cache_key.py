"""Keys for a memoizing cache."""


def cache_key(value, typed=False):
    """The key a value is cached under: the value alone, or with typed, the value and its type
    (so that 1 and 1.0, equal as values, are cached apart)."""
    return (value,) if typed else (value, type(value))
