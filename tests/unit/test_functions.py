"""verify/functions.py: the dotted name a late-imported module of the project is imported by."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from pytest_caretaker.verify.functions import module_name


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path.resolve()
    (root / "src" / "pkg").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [str(root), str(root / "src")])
    monkeypatch.setitem(sys.modules, "pkg", types.ModuleType("pkg"))
    return root


def test_a_module_of_an_imported_package_is_named_by_that_package(layout: Path) -> None:
    # `src` is on sys.path through the project's root too (a namespace package), but `src.pkg`
    # is not the package the tests imported: importing it would run pkg a second time.
    assert module_name(str(layout / "src" / "pkg" / "late.py")) == "pkg.late"
    assert module_name(str(layout / "src" / "pkg" / "__init__.py")) == "pkg"


def test_a_top_level_module_is_named_and_a_module_of_no_imported_package_is_not(
    layout: Path,
) -> None:
    assert module_name(str(layout / "helpers.py")) == "helpers"
    assert module_name(str(layout / "src" / "other" / "mod.py")) is None
    assert module_name(str(layout / "data.txt")) is None
    assert module_name("/elsewhere/mod.py") is None
