from free_shipping import Shipping, order_total


def test_a_small_order_pays_the_flat_rate():
    assert Shipping.cost(10) == 4.5


def test_a_large_order_ships_free():
    assert Shipping.cost(80) == 0.0


def test_fifty_ships_free():
    assert Shipping.cost(50) == 0.0


def test_the_total_of_an_order_of_fifty():
    assert order_total([20, 30]) == 50
