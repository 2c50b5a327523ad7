"""Shipping costs: free above a threshold."""


class Shipping:
    FREE_FROM = 51  # orders of this total or more ship free
    FLAT = 4.5

    @classmethod
    def cost(cls, total):
        return 0.0 if total >= cls.FREE_FROM else cls.FLAT


def order_total(prices):
    subtotal = sum(prices)
    return subtotal + Shipping.cost(subtotal)
