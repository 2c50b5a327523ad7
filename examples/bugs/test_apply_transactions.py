import pytest

from apply_transactions import apply_transactions


def test_deposits_add_up():
    assert apply_transactions(10, [("deposit", 5), ("deposit", 2.5)]) == 17.5


def test_no_transactions_keep_the_balance():
    assert apply_transactions(7, []) == 7


def test_a_withdrawal_reduces_the_balance():
    assert apply_transactions(10, [("withdraw", 4)]) == 6
    assert apply_transactions(10, [("deposit", 5), ("withdraw", 12)]) == 3


def test_overdrawing_is_refused():
    with pytest.raises(ValueError, match="insufficient"):
        apply_transactions(5, [("withdraw", 6)])


def test_unknown_kinds_are_refused():
    with pytest.raises(ValueError, match="unknown"):
        apply_transactions(5, [("transfer", 1)])
