"""Prices rounded by a decorator."""


def rounded(digits=2):
    def wrap(function):
        def inner(*args):
            return round(function(*args), digits)

        return inner

    return wrap


class Basket:
    def __init__(self, prices):
        self.prices = prices

    @rounded(digits=1)
    def total(self):
        return sum(self.prices)

    @rounded()
    def average(self):
        return sum(self.prices) / len(self.prices)
