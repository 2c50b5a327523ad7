import pytest

from vat_price import gross, net


def test_nothing_costs_nothing():
    assert gross(0) == 0


@pytest.mark.parametrize(("price", "with_vat"), [(10, 12.0), (2.5, 3.0), (99.99, 119.99)])
def test_gross(price, with_vat):
    assert gross(price) == with_vat


def test_net_undoes_gross():
    assert net(12.0) == 10.0
