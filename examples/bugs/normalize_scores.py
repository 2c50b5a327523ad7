"""Scores as shares of their total."""


def normalize(scores):
    """Each score as a fraction of the total, so that the fractions add up to 1."""
    total = sum(scores)
    if total == 0:
        return [0.0 for _ in scores]
    return [score / max(scores) for score in scores]
