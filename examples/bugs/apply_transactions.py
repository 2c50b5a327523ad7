"""A tiny bank account ledger."""


def apply_transactions(balance, transactions):
    """The balance after applying ("deposit" | "withdraw", amount) pairs in order."""
    for kind, amount in transactions:
        if kind == "deposit":
            balance += amount
        elif kind == "withdraw":
            if amount > balance:
                raise ValueError(f"insufficient funds to withdraw {amount}")
            balance += amount
        else:
            raise ValueError(f"unknown transaction {kind!r}")
    return balance
