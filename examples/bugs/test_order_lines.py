import pytest

from order_lines import describe, line_total, order_total

PEN = {"name": "pen", "price": 1.5, "qty": 4}
PAD = {"name": "pad", "price": 3.25, "qty": 2}


def test_describe():
    assert describe(PEN) == "4 x pen"


def test_line_total():
    assert line_total(PAD) == 6.5


def test_an_empty_order():
    assert order_total([]) == 0


@pytest.mark.parametrize(("lines", "total"), [([PEN], 6.0), ([PEN, PAD], 12.5), ([PAD], 6.5)])
def test_order_total(lines, total):
    assert order_total(lines) == total
