import pytest

from full_discount import apply_discount


def test_a_quarter_off():
    assert apply_discount(80.0, 25) == 60.0


@pytest.mark.parametrize("price", [0.5, 5.0, 9.99, 19.99, 42.0, 80.0, 120.0, 999.0, 1000.0])
def test_a_full_discount_makes_it_free(price):
    assert apply_discount(price, 100) == 0.0
