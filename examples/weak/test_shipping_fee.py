from shipping_fee import FEE, shipping_fee


def test_a_small_order_pays_shipping():
    assert shipping_fee(20) == FEE


def test_an_order_just_below_the_threshold_pays_shipping():
    assert shipping_fee(49) == FEE


def test_an_order_of_fifty_ships_free():
    assert shipping_fee(50) == 0.0


def test_a_large_order_ships_free():
    assert shipping_fee(120) == 0.0
