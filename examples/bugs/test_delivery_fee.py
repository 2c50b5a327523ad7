import pytest

from delivery_fee import Delivery, to_pay


def test_a_small_order_pays_the_fee():
    assert Delivery.fee(12) == 4.95


@pytest.mark.parametrize("total", [50, 75, 120])
def test_from_fifty_delivery_is_free(total):
    assert Delivery.fee(total) == 0.0


def test_an_order_of_sixty():
    assert to_pay([20, 40]) == 60
