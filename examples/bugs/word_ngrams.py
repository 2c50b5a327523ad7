"""N-grams for a text index."""


def ngrams(words, n):
    """Every run of n consecutive words, as tuples, in order."""
    if n < 1:
        raise ValueError("n must be at least 1")
    grams = []
    for start in range(len(words) - n):
        grams.append(tuple(words[start : start + n]))
    return grams
