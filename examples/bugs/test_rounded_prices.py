from rounded_prices import Basket


def test_the_total_to_the_cent():
    assert Basket([1.234, 2.0]).total() == 3.23


def test_a_whole_total():
    assert Basket([1.0, 2.0]).total() == 3.0


def test_the_average_to_the_cent():
    assert Basket([1.0, 1.25]).average() == 1.12
