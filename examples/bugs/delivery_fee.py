"""Delivery: free from a threshold, a flat fee below it."""


class Delivery:
    FREE_FROM = 500  # orders of this total (in euros) or more are delivered free
    FEE = 4.95

    @classmethod
    def fee(cls, total):
        return 0.0 if total >= cls.FREE_FROM else cls.FEE


def to_pay(prices):
    subtotal = sum(prices)
    return round(subtotal + Delivery.fee(subtotal), 2)
