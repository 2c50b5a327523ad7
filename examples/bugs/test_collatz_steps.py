import pytest

from collatz_steps import collatz_steps

pytestmark = pytest.mark.timeout(1)  # the bug sends most walks round a cycle forever


def test_one_takes_no_step():
    assert collatz_steps(1) == 0


def test_powers_of_two_only_halve():
    assert collatz_steps(16) == 4


@pytest.mark.parametrize(
    ("n", "steps"), [(3, 7), (5, 5), (6, 8), (7, 16), (9, 19), (27, 111)]
)
def test_odd_starts(n, steps):
    assert collatz_steps(n) == steps
