"""Small statistics over sequences of numbers."""


def moving_average(values, window):
    """The average of every run of `window` consecutive values, in order."""
    averages = []
    for start in range(len(values) - window):
        chunk = values[start : start + window]
        averages.append(sum(chunk) / window)
    return averages
