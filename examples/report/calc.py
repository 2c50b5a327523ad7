"""Three small bugs the built-in repairer heals, for the nine sessions of ``caretaker report``."""


def add(a, b):
    return a - b


def last(xs):
    return xs[len(xs)]


def mean(xs):
    return sum(xs) / (len(xs) + 1)
