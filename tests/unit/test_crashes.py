"""`caretaker crashes`: the listing, the errors at its edge, a record whose call passes now, and
the tests `crashes test` writes for a method called with an object."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_caretaker.cli import main

CART = """\
from pytest_caretaker.runtime import heal


class Item:
    def __init__(self, name, price):
        self.name, self.price = name, price


class Cart:
    def __init__(self):
        self.items = []

    @heal(id="cart-add")
    def add(self, item):
        self.items.append(item)
        return self.items[len(self.items)]
"""
RUN = "from shop.cart import Cart, Item\nCart().add(Item('pen', 2))\n"


def crash(root: Path, source: str = CART) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (root / "shop").mkdir(exist_ok=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "cart.py").write_text(source)
    (root / "main.py").write_text(RUN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
    done = subprocess.run([sys.executable, "main.py"], cwd=root, env=env, capture_output=True)
    assert done.returncode == 1


def test_no_records_is_said_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["crashes", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == (
        f"caretaker: no crashes are recorded under {tmp_path / '.caretaker' / 'crashes'}\n"
    )
    assert main(["crashes", "heal", "--root", str(tmp_path)]) == 2


def test_an_unknown_id_names_the_way_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crash(tmp_path)

    assert main(["crashes", "test", "nope", "--root", str(tmp_path)]) == 2

    assert capsys.readouterr().err == (
        "caretaker: no crash is recorded with the id 'nope'; caretaker crashes lists them\n"
    )


def test_a_call_that_returns_now_is_not_healed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crash(tmp_path)
    fixed = CART.replace("self.items[len(self.items)]", "self.items[-1].name")
    (tmp_path / "shop" / "cart.py").write_text(fixed)

    status = main(["crashes", "heal", "--model", "builtin", "--root", str(tmp_path)])

    assert status == 1
    out = capsys.readouterr().out
    assert "NOT HEALED cart-add: the call returns when replayed (fixed already" in out
    assert out.splitlines()[-1].startswith("caretaker: 0 healed, 1 not healed")


def test_crashes_test_replays_a_method_called_with_an_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crash(tmp_path)

    assert main(["crashes", "test", "--root", str(tmp_path)]) == 0
    assert main(["crashes", "test", "--root", str(tmp_path)]) == 0

    first, again = capsys.readouterr().out.splitlines()
    assert first == "caretaker: wrote tests/test_crash_cart_add.py (a regression test for cart-add)"
    assert again == "caretaker: tests/test_crash_cart_add.py is there already; left as it is"
    test = (tmp_path / "tests" / "test_crash_cart_add.py").read_text()
    assert "args, kwargs = pickle.loads(b" in test  # a Cart and an Item are no literals
    assert "_member(Cart, 'add')(*args, **kwargs)" in test

    def pytest_run() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
        return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)

    before = pytest_run()
    assert before.returncode == 1 and "IndexError" in before.stdout
    fixed = CART.replace("self.items[len(self.items)]", "self.items[-1]")
    (tmp_path / "shop" / "cart.py").write_text(fixed)
    assert pytest_run().returncode == 0
