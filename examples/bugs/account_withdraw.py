"""A bank account that refuses to go overdrawn."""


class Overdrawn(Exception):
    pass


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("a deposit must be positive")
        self.balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self.balance:
            raise Overdrawn(f"{self.owner} has only {self.balance}")
        self.balance += amount
        self.history.append(("withdraw", amount))
        return self.balance
