"""@heal and the crash records, in this process: every shape of function, the modes, the
bounds of the records, and heal mode with a kept fix (which needs no model and no child)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.children import worker_token
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.results import Edit
from pytest_caretaker.runtime import heal, records, store
from pytest_caretaker.runtime.mode import resolve_mode


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CARETAKER_ROOT", str(tmp_path))
    monkeypatch.delenv("CARETAKER_RUNTIME", raising=False)
    monkeypatch.delenv("CARETAKER_WORKER", raising=False)
    return tmp_path


def only_record(root: Path) -> dict[str, Any]:
    (path,) = (root / ".caretaker" / "crashes").glob("*.json")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


class Basket:
    def __init__(self, items: dict[str, int]) -> None:
        self.items = items

    @heal
    def count(self, name: str) -> int:
        return self.items[name]

    @staticmethod
    @heal
    def static(name: str) -> int:
        return {"a": 1}[name]

    @heal
    @classmethod
    def klass(cls, name: str) -> int:
        return {"a": 1}[name]


@heal(id="async-total", description="adds up")
async def total(values: list[int]) -> float:
    return sum(values) / len(values)


@pytest.mark.parametrize(
    ("call", "qualname"),
    [
        (lambda: Basket({"a": 1}).count("b"), "Basket.count"),
        (lambda: Basket.static("b"), "Basket.static"),
        (lambda: Basket.klass("b"), "Basket.klass"),
        (lambda: asyncio.run(total([])), "total"),
    ],
)
def test_every_shape_is_recorded_and_raises_as_it_was(root: Path, call: Any, qualname: str) -> None:
    with pytest.raises((KeyError, ZeroDivisionError)) as raised:
        call()

    data = only_record(root)
    assert data["function"]["qualname"] == qualname
    assert data["exception"]["type"] == type(raised.value).__name__
    assert (
        data["call"]["pickle"]
        and (root / ".caretaker" / "crashes" / data["call"]["pickle"]).is_file()
    )
    assert data["function"]["coroutine"] is (qualname == "total")
    assert (root / ".caretaker" / ".gitignore").is_file()


def test_the_exception_is_the_same_object_and_values_pass_through(root: Path) -> None:
    error = ValueError("mine")

    @heal
    def fails() -> None:
        raise error

    @heal
    def works(a: int, *, b: int) -> int:
        return a + b

    with pytest.raises(ValueError) as raised:
        fails()
    assert raised.value is error
    assert works(1, b=2) == 3
    assert works.__name__ == "works" and works.__wrapped__ is not works  # type: ignore[attr-defined]
    assert only_record(root)["call"]["why"].startswith("the function is defined inside another")


def test_off_returns_the_function_itself_and_records_nothing(root: Path) -> None:
    def plain() -> int:
        return 1

    assert heal(mode="off")(plain) is plain
    assert not (root / ".caretaker").exists()


@pytest.mark.parametrize(
    ("given", "env", "expected"),
    [
        (None, "", "record"),
        (None, "HEAL", "heal"),
        ("off", "heal", "off"),
        ("record", "", "record"),
    ],
)
def test_the_mode_comes_from_the_argument_then_the_environment(
    monkeypatch: pytest.MonkeyPatch, given: str | None, env: str, expected: str
) -> None:
    monkeypatch.delenv("CARETAKER_WORKER", raising=False)
    monkeypatch.setenv("CARETAKER_RUNTIME", env)
    assert resolve_mode(given) == expected


def test_a_bad_mode_says_the_way_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CARETAKER_WORKER", raising=False)
    monkeypatch.setenv("CARETAKER_RUNTIME", "fix")
    with pytest.raises(
        ValueError, match=r"\$CARETAKER_RUNTIME is 'fix'; use one of off, record, heal"
    ):
        heal(lambda: None)


def test_caretakers_own_children_record_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARETAKER_WORKER", worker_token())
    assert resolve_mode("heal") == "off"


def test_a_worker_flag_in_the_users_shell_does_not_turn_healing_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CARETAKER_WORKER", "1")
    assert resolve_mode("heal") == "heal"


def test_records_are_bounded_in_number_and_call_size(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records, "MAX_RECORDS", 3)
    monkeypatch.setattr(records, "MAX_CALL", 1_000)
    for name in "abcde":
        with pytest.raises(KeyError):
            heal(id=f"id-{name}")(Basket.count.__wrapped__)(Basket({}), name)  # type: ignore[attr-defined]
    with pytest.raises(KeyError):
        heal(id="big")(Basket.count.__wrapped__)(Basket({}), "x" * 5_000)  # type: ignore[attr-defined]

    kept = sorted(p.name for p in (root / ".caretaker" / "crashes").glob("*.json"))
    assert len(kept) == 3
    big = json.loads(next((root / ".caretaker" / "crashes").glob("big-*.json")).read_text())
    assert big["call"]["pickle"] == ""
    assert big["call"]["why"].startswith("its arguments pickle to ")
    assert big["call"]["why"].endswith("bytes, more than 1,000")
    assert len(list((root / ".caretaker" / "crashes").glob("*.pkl"))) == 2


def test_a_secret_local_is_redacted_in_the_record(root: Path) -> None:
    @heal(id="secret")
    def connect(host: str) -> None:
        api_token = "tok-4f9a8b7c6d5e3a2b1c0d"
        raise ConnectionError(host, len(api_token))

    with pytest.raises(ConnectionError):
        connect("db.example.com")

    text = next((root / ".caretaker" / "crashes").glob("*.json")).read_text()
    assert "tok-4f9a8b7c6d5e3a2b1c0d" not in text
    assert "db.example.com" in text


PRICES = """\
from pytest_caretaker.runtime import heal
from shop.kept import STORE


class Prices:
    base = 10

    @heal(id="price", mode="heal", store=STORE)
    def unit(self, count):
        return self.base / (count - 1)


@heal(id="mean", mode="heal", store=STORE)
async def mean(values):
    return sum(values) / len(values) + 0
"""


class DictStore:
    def __init__(self) -> None:
        self.kept: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.kept.get(key)

    def save(self, key: str, code: str) -> None:
        self.kept[key] = code


def test_heal_mode_swaps_a_kept_fix_in_and_retries(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "shop").mkdir()
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "prices.py").write_text(PRICES)
    (root / "shop" / "kept.py").write_text("STORE = None\n")
    kept = DictStore()
    source = ProjectFiles(root).get("shop/prices.py")
    assert source is not None

    def current(qualname: str) -> str:  # as the live code reads it: decorators and all
        definition = source.find(qualname)
        assert definition is not None
        return source.source_of(definition)

    unit_fix = "def unit(self, count):\n    return self.base / max(count - 1, 1)\n"
    mean_fix = "async def mean(values):\n    return sum(values) / max(len(values), 1)\n"
    kept.save(
        store.key("price", current("Prices.unit")),
        store.code_of([Edit("replace", "shop/prices.py", "Prices.unit", unit_fix)], "One."),
    )
    kept.save(
        store.key("mean", current("mean")),
        store.code_of([Edit("replace", "shop/prices.py", "mean", mean_fix)], ""),
    )
    monkeypatch.syspath_prepend(str(root))
    from shop import kept as holder  # type: ignore[import-not-found]

    holder.STORE = kept
    from shop import prices

    alias = prices.Prices.unit.__wrapped__
    assert prices.Prices().unit(1) == 10.0  # healed: no ZeroDivisionError
    assert alias(prices.Prices(), 1) == 10.0  # every reference sees the new code
    assert asyncio.run(prices.mean([])) == 0.0
    for name in ("shop.prices", "shop.kept", "shop"):
        sys.modules.pop(name, None)


def test_nothing_heavy_is_imported_by_a_recorded_crash(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "HEAVY = ('litellm', 'libcst', 'git', 'jinja2', 'pytest')\n"
        "from pytest_caretaker.runtime import heal, install\n"
        "install()\n"
        "@heal(id='x')\n"
        "def f(d):\n"
        "    return d['k']\n"
        "print(sorted(m for m in HEAVY if m in sys.modules))\n"
        "try:\n"
        "    f({})\n"
        "except KeyError:\n"
        "    pass\n"
        "print(sorted(m for m in HEAVY if m in sys.modules))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "CARETAKER_ROOT": str(tmp_path), "CARETAKER_RUNTIME": "record"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.splitlines() == ["[]", "[]"]
    assert list((tmp_path / ".caretaker" / "crashes").glob("x-*.json"))


def test_an_exception_is_recorded_once_by_the_innermost_decorated_function(root: Path) -> None:
    @heal(id="inner")
    def inner() -> None:
        raise LookupError("gone")

    @heal(id="outer")
    def outer() -> None:
        inner()

    with pytest.raises(LookupError):
        outer()

    assert only_record(root)["id"] == "inner"
