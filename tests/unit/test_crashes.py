"""`caretaker crashes`: the listing, the errors at its edge, a record whose call passes now (marked
fixed), a record's lifecycle, `crashes clear`, and the tests `crashes test` writes for a method
called with an object."""

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
    # cart.py rewritten in the same second at the same size would run from the earlier .pyc
    env["PYTHONDONTWRITEBYTECODE"] = "1"
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


def test_a_call_that_returns_now_is_marked_fixed_not_counted_as_not_healed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crash(tmp_path)
    fixed = CART.replace("self.items[len(self.items)]", "self.items[-1].name")
    (tmp_path / "shop" / "cart.py").write_text(fixed)

    status = main(["crashes", "heal", "--model", "builtin", "--root", str(tmp_path)])

    assert status == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "caretaker: healing 1/1 cart-add …",
        "caretaker: cart-add: the recorded call returns when replayed now; marked fixed",
    ]
    assert not (tmp_path / ".caretaker" / "history.jsonl").exists()
    assert main(["crashes", "heal", "--model", "builtin", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == (
        "caretaker: cart-add is fixed (its recorded call returned when replayed); not healed "
        "again (caretaker crashes clear --fixed removes it)\n"
    )
    assert main(["crashes", "--root", str(tmp_path)]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split()[-2:] == ["STATUS", "REPLAYABLE"]
    assert row.endswith("  fixed (the call returns)  yes")


def test_a_crash_recorded_again_after_its_fix_is_open_again(tmp_path: Path) -> None:
    from pytest_caretaker.runtime import lifecycle
    from pytest_caretaker.runtime.records import all_crashes

    crash(tmp_path)
    (record,) = all_crashes(tmp_path)
    assert lifecycle.status(record) == "open"
    assert lifecycle.mark_fixed(record, "committed", "0123456789abcdef", "fix: heal cart-add")
    (record,) = all_crashes(tmp_path)
    assert lifecycle.status(record) == "fixed 0123456"
    assert lifecycle.said(record) == "by 0123456 fix: heal cart-add"

    crash(tmp_path)  # the old code ran again

    (again,) = all_crashes(tmp_path)
    assert again.data["count"] == 2
    assert lifecycle.status(again) == "open"
    assert not lifecycle.mark_fixed(record, "returns")  # read before the crash came back
    (again,) = all_crashes(tmp_path)
    assert lifecycle.status(again) == "open"


def two_crashes(root: Path) -> None:
    crash(root)
    crash(root, CART.replace('"cart-add"', '"cart-put"'))


def test_clear_removes_the_named_crashes_with_their_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two_crashes(tmp_path)
    folder = tmp_path / ".caretaker" / "crashes"
    assert len(list(folder.glob("*.pkl"))) == 2

    assert main(["crashes", "clear", "cart-put", "--root", str(tmp_path)]) == 0

    assert capsys.readouterr().out == "caretaker: removed 1 crash record (cart-put)\n"
    assert [p.name.split("-")[1] for p in folder.glob("*.json")] == ["add"]
    assert len(list(folder.glob("*.pkl"))) == 1
    assert main(["crashes", "clear", "nope", "--root", str(tmp_path)]) == 2
    assert "no crash is recorded with the id 'nope'" in capsys.readouterr().err


def test_clear_fixed_keeps_the_open_ones_and_clear_removes_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_caretaker.runtime import lifecycle
    from pytest_caretaker.runtime.records import all_crashes

    two_crashes(tmp_path)
    assert main(["crashes", "clear", "--fixed", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "caretaker: no crash is marked fixed; nothing was removed\n"
    (put,) = [c for c in all_crashes(tmp_path) if c.id == "cart-put"]
    lifecycle.mark_fixed(put, "written")

    assert main(["crashes", "clear", "--fixed", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "caretaker: removed 1 crash record (cart-put)\n"
    assert [c.id for c in all_crashes(tmp_path)] == ["cart-add"]
    assert main(["crashes", "clear", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "caretaker: removed 1 crash record (cart-add)\n"
    assert main(["crashes", "clear", "--root", str(tmp_path)]) == 0  # nothing left: no error
    assert "no crashes are recorded" in capsys.readouterr().out


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
