from shipping_cost import shipping


def test_a_large_order_ships_free():
    assert shipping(600.0) == 0.0


def test_a_mid_sized_order_ships_free():
    assert shipping(60.0) == 0.0
