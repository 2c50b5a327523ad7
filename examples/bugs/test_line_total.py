import pytest

from line_total import line_total


@pytest.mark.parametrize("unit", range(1, 21))
@pytest.mark.parametrize("qty", range(1, 13))
def test_line_total(unit, qty):
    assert line_total(unit, qty) == unit * qty


def test_a_free_item_costs_nothing():
    assert line_total(0, 5) == 0


def test_a_negative_quantity_is_refused():
    with pytest.raises(ValueError):
        line_total(10, -1)
