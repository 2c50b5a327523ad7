from shop.stats import average_basket, busiest_hour


def test_average_basket():
    assert average_basket([10.0, 20.0]) == 15.0


def test_busiest_hour():
    assert busiest_hour([{"hour": 9}, {"hour": 12}, {"hour": 12}]) == 12
