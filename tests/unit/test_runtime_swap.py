"""Hot-swapping a proven fix (runtime/swap.py) and the text a store keeps (runtime/store.py)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from pytest_caretaker.results import Edit
from pytest_caretaker.runtime.store import FileStore, code_of, edits_of, key
from pytest_caretaker.runtime.swap import NotSwapped, swap

SHAPES = """\
import functools


class Base:
    def size(self):
        return 1


class Box(Base):
    __secret = 5

    def size(self):
        return super().size() + 1

    def hidden(self):
        return self.__secret

    @staticmethod
    def double(x):
        return x * 2


def outer():
    n = 1

    def inner():
        return n

    return inner


LIMIT = 3
"""


@pytest.fixture
def shapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    (tmp_path / "shapes_mod.py").write_text(SHAPES, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("shapes_mod")
    yield module
    sys.modules.pop("shapes_mod", None)


def patched(old: str, new: str) -> dict[str, bytes]:
    assert old in SHAPES
    return {"shapes_mod.py": SHAPES.replace(old, new).encode()}


def test_a_method_with_super_and_a_mangled_name_is_swapped(
    shapes: ModuleType, tmp_path: Path
) -> None:
    box, size = shapes.Box(), shapes.Box.size
    edits = [
        Edit("replace", "shapes_mod.py", "Box.size", "def size(self): ..."),
        Edit("replace", "shapes_mod.py", "Box.hidden", "def hidden(self): ..."),
    ]
    new = SHAPES.replace("super().size() + 1", "super().size() + 10").replace(
        "return self.__secret", "return self.__secret * 2"
    )

    assert swap(edits, {"shapes_mod.py": new.encode()}, tmp_path) == ["Box.size", "Box.hidden"]

    assert box.size() == 11 and size(box) == 11  # old references see the new code
    assert box.hidden() == 10
    assert shapes.Box.size.__code__.co_filename.endswith("shapes_mod.py")


def test_a_static_method_and_a_constant_are_swapped(shapes: ModuleType, tmp_path: Path) -> None:
    edits = [
        Edit("replace", "shapes_mod.py", "Box.double", "def double(x): ..."),
        Edit("replace", "shapes_mod.py", "LIMIT", "LIMIT = 4\n"),
    ]
    changes = patched("return x * 2", "return x * 3")

    swap(edits, changes, tmp_path)

    assert shapes.Box.double(2) == 6
    assert shapes.LIMIT == 4


def test_a_helper_and_an_import_run_in_the_module(shapes: ModuleType, tmp_path: Path) -> None:
    edits = [
        Edit("import", "shapes_mod.py", "import math", "import math\n"),
        Edit("helper", "shapes_mod.py", "_half", "def _half(x):\n    return x / 2\n"),
    ]

    swap(edits, {}, tmp_path)

    assert shapes._half(3) == 1.5
    assert shapes.math.floor(1.5) == 1


def test_a_new_method_goes_into_its_loaded_class(shapes: ModuleType, tmp_path: Path) -> None:
    box = shapes.Box()
    method = "def __len__(self):\n    return self.size() * LIMIT\n"

    swap([Edit("helper", "shapes_mod.py", "Box.__len__", method)], {}, tmp_path)

    assert len(box) == 6  # an instance made before sees it; it reads the module's names
    assert not hasattr(shapes, "__len__")


def test_a_fix_is_swapped_whole_or_not_at_all(shapes: ModuleType, tmp_path: Path) -> None:
    before = shapes.Box.double.__code__
    edits = [
        Edit("replace", "shapes_mod.py", "LIMIT", "LIMIT = 4\n"),
        Edit("replace", "shapes_mod.py", "Box.double", "def double(x): ..."),
    ]
    broken = SHAPES.replace("return x * 2", "return x * (")

    with pytest.raises(NotSwapped, match=r"the fixed shapes_mod\.py does not compile"):
        swap(edits, {"shapes_mod.py": broken.encode()}, tmp_path)

    assert shapes.LIMIT == 3
    assert shapes.Box.double.__code__ is before


def test_a_function_that_is_not_there_is_refused(shapes: ModuleType, tmp_path: Path) -> None:
    edit = Edit("replace", "shapes_mod.py", "Box.gone", "def gone(self): ...")
    with pytest.raises(NotSwapped, match=r"Box\.gone is not defined in the running shapes_mod\.py"):
        swap([edit], {"shapes_mod.py": SHAPES.encode()}, tmp_path)


def test_a_file_this_process_has_not_imported_is_left_to_its_import(tmp_path: Path) -> None:
    (tmp_path / "later.py").write_text("def f():\n    return 1\n")
    edit = Edit("replace", "later.py", "f", "def f():\n    return 2\n")
    assert swap([edit], {"later.py": b"def f():\n    return 2\n"}, tmp_path) == []


def test_the_stored_text_reads_back_as_the_same_edits(tmp_path: Path) -> None:
    edits = (
        Edit("import", "app/x.py", "import math", "import math\n"),
        Edit("replace", "app/x.py", "Box.size", "def size(self):\n    # note\n    return 2\n"),
        Edit("helper", "app/x.py", "_half", "def _half(x):\n\n    return x / 2\n"),
    )
    text = code_of(edits, "Box.size was off by one.\nSecond line.")

    assert text.startswith("# Box.size was off by one.\n# Second line.\n")
    assert "# caretaker: replace app/x.py::Box.size\ndef size(self):\n" in text
    assert edits_of(text) == edits
    assert edits_of("print('no header')\n") == ()


def test_the_file_store_keeps_a_fix_by_key(tmp_path: Path) -> None:
    kept = FileStore(tmp_path / "fixes")
    name = key("invoice-total", "def total(): ...\n")

    assert kept.get(name) is None
    kept.save(name, "# caretaker: replace a.py::f\ndef f(): ...\n")

    assert kept.get(name) == "# caretaker: replace a.py::f\ndef f(): ...\n"
    assert name.startswith("invoice-total@") and len(name) == len("invoice-total@") + 16
    assert key("invoice-total", "def total(): return 1\n") != name  # a changed source
    assert [p.name for p in (tmp_path / "fixes").iterdir()] == [f"{name}.py"]
