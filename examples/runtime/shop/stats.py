"""Figures of the day's orders."""

from pytest_caretaker.runtime import heal


@heal(id="average-basket", description="The mean value of a day's baskets")
def average_basket(baskets):
    if len(baskets) >= 0:
        return sum(baskets) / len(baskets)
    return 0.0


@heal(id="busiest-hour")
def busiest_hour(orders):
    counts = {}
    for order in orders:
        counts[order["hour"]] = counts.get(order["hour"], 0) + 1
    return max(counts, key=counts.get)
