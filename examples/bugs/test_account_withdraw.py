import pytest

from account_withdraw import Account, Overdrawn


def test_a_deposit_adds_to_the_balance():
    account = Account("ada", 10)
    account.deposit(5)
    assert account.balance == 15


def test_a_withdrawal_takes_from_the_balance():
    account = Account("ada", 10)
    assert account.withdraw(4) == 6


def test_withdrawing_everything_leaves_nothing():
    account = Account("ada", 10)
    account.withdraw(10)
    assert account.balance == 0


def test_an_overdraft_is_refused():
    with pytest.raises(Overdrawn):
        Account("ada", 10).withdraw(11)


def test_the_history_records_both():
    account = Account("ada")
    account.deposit(3)
    account.withdraw(2)
    assert account.history == [("deposit", 3), ("withdraw", 2)]
    assert account.balance == 1
