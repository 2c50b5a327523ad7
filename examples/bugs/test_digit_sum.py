import pytest

from digit_sum import digit_sum

pytestmark = pytest.mark.timeout(1)  # the bug never shortens the number: the loop never ends


def test_zero():
    assert digit_sum(0) == 0


def test_negative_numbers_are_refused():
    with pytest.raises(ValueError):
        digit_sum(-5)


@pytest.mark.parametrize(("n", "total"), [(7, 7), (12, 3), (345, 12), (1000, 1), (9999, 36)])
def test_digits_add_up(n, total):
    assert digit_sum(n) == total
