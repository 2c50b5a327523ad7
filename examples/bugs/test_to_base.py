import pytest

from to_base import to_base


def test_zero():
    assert to_base(0, 2) == "0"


@pytest.mark.parametrize("digit", [1, 7, 9])
def test_a_single_digit(digit):
    assert to_base(digit, 10) == str(digit)


@pytest.mark.parametrize(
    ("number", "base", "written"),
    [(31, 16, "1F"), (10, 2, "1010"), (255, 16, "FF"), (12, 10, "12"), (64, 8, "100")],
)
def test_several_digits(number, base, written):
    assert to_base(number, base) == written
