import pytest

from median import median


@pytest.mark.parametrize(
    "values, expected",
    [
        ([3, 1, 2], 2),
        ([5, 1, 4, 2], 3.0),
        ([10, 20], 15.0),
        ([7, 7, 7], 7),
        ([1.5, 2.5, 0.5], 1.5),
        ([9, 2, 6, 4, 8], 6),
        ([-3, -1, -2], -2),
        ([100, 1, 50, 2], 26.0),
    ],
)
def test_the_middle_value(values, expected):
    assert median(values) == expected


def test_a_single_value_is_its_own_median():
    assert median([7]) == 7
