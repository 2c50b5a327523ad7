from items_per_order import items_per_order


def test_no_orders():
    assert items_per_order(0, 0, 0) == 0.0


def test_nothing_returned():
    assert items_per_order(8, 0, 4) == 2.0


def test_returns_are_taken_off():
    assert items_per_order(10, 1, 3) == 3.0
