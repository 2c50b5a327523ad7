from invoice import discounted


def test_no_discount_keeps_the_price():
    assert discounted(80, 0) == 80
