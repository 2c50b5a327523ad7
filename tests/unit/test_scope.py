"""Guard: edits outside the project or outside the scope are refused with a sentence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_caretaker.guard.scope import check, fence
from pytest_caretaker.project.files import TestFiles
from pytest_caretaker.results import Edit
from pytest_caretaker.settings import Scope

NEW_SOURCE = "def f():\n    return 1\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = (tmp_path / "proj").resolve()
    (project / "pkg").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "calc.py").write_text(NEW_SOURCE)
    (project / "tests" / "test_calc.py").write_text("def test_f():\n    assert True\n")
    (project / "notes.txt").write_text("not python\n")
    vendored = project / ".venv" / "lib" / "python3.11" / "site-packages" / "lib"
    vendored.mkdir(parents=True)
    (vendored / "mod.py").write_text(NEW_SOURCE)
    return project


def edit(path: str) -> Edit:
    return Edit(kind="replace", path=path, qualname="f", source=NEW_SOURCE)


def test_fence_accepts_a_project_file(root: Path) -> None:
    assert fence("pkg/calc.py", root) is None
    assert fence("tests/test_calc.py", root) is None


def test_fence_accepts_a_file_reached_through_a_dot_segment(root: Path) -> None:
    assert fence("./pkg/calc.py", root) is None


def test_fence_refuses_no_path(root: Path) -> None:
    assert fence("", root) == "the edit names no file"


@pytest.mark.parametrize("rel", ["../outside.py", "pkg/../../outside.py", "pkg/../pkg/calc.py"])
def test_fence_refuses_parent_segments(root: Path, rel: str) -> None:
    assert fence(rel, root) == f"{rel} is outside the project; edit files under proj/ only"


def test_fence_refuses_an_absolute_path(root: Path) -> None:
    absolute = str(root / "pkg" / "calc.py")  # even one that lies inside the project
    assert fence(absolute, root) == (
        f"{absolute} is outside the project; edit files under proj/ only"
    )


@pytest.mark.parametrize("rel", ["notes.txt", "pkg/calc.pyc", "pkg/calc", "setup.cfg"])
def test_fence_refuses_a_file_that_is_not_python(root: Path, rel: str) -> None:
    assert fence(rel, root) == f"{rel} is not a Python file; only .py files may be edited"


@pytest.mark.parametrize(
    "rel",
    [".venv/lib/python3.11/site-packages/lib/mod.py", "usr/lib/python3/dist-packages/x.py"],
)
def test_fence_refuses_an_installed_library(root: Path, rel: str) -> None:
    assert fence(rel, root) == f"{rel} belongs to an installed library, not to the project"


def test_fence_refuses_a_link_that_leads_outside(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.py").write_text(NEW_SOURCE)
    os.symlink(elsewhere / "secret.py", root / "pkg" / "linked.py")
    os.symlink(elsewhere, root / "linkdir")

    assert fence("pkg/linked.py", root) == (
        "pkg/linked.py leads outside the project through a link"
    )
    assert fence("linkdir/secret.py", root) == (
        "linkdir/secret.py leads outside the project through a link"
    )


def test_fence_accepts_a_link_that_stays_inside(root: Path) -> None:
    os.symlink(root / "pkg" / "calc.py", root / "alias.py")
    assert fence("alias.py", root) is None


@pytest.mark.parametrize("rel", ["pkg/missing.py", "missing/calc.py"])
def test_fence_refuses_a_missing_file(root: Path, rel: str) -> None:
    assert fence(rel, root) == f"{rel} does not exist; edit one of the functions you were shown"


def test_fence_refuses_a_directory_named_like_a_module(root: Path) -> None:
    (root / "weird.py").mkdir()
    assert fence("weird.py", root) == (
        "weird.py does not exist; edit one of the functions you were shown"
    )


TESTS = {"tests/test_calc.py"}


def test_check_scope_code_refuses_a_test_file(root: Path) -> None:
    reason = check([edit("tests/test_calc.py")], "code", root, TESTS)
    assert reason is not None
    assert "tests/test_calc.py" in reason
    assert "fix the code under test instead" in reason
    assert "--heal-scope=tests" in reason


def test_check_scope_code_accepts_code(root: Path) -> None:
    assert check([edit("pkg/calc.py")], "code", root, TESTS) is None


def test_check_scope_tests_refuses_code(root: Path) -> None:
    reason = check([edit("pkg/calc.py")], "tests", root, TESTS)
    assert reason is not None
    assert "pkg/calc.py" in reason
    assert "not a test file" in reason
    assert "--heal-scope=code" in reason


def test_check_scope_tests_accepts_a_test_file(root: Path) -> None:
    assert check([edit("tests/test_calc.py")], "tests", root, TESTS) is None


def test_check_scope_any_accepts_both(root: Path) -> None:
    edits = [edit("pkg/calc.py"), edit("tests/test_calc.py")]
    assert check(edits, "any", root, TESTS) is None


def test_check_accepts_no_edits(root: Path) -> None:
    assert check([], "code", root, TESTS) is None


@pytest.mark.parametrize("scope", ["code", "tests", "any"])
def test_check_applies_the_fence_before_the_scope(root: Path, scope: Scope) -> None:
    edits = [edit("tests/test_calc.py" if scope == "tests" else "pkg/calc.py"), edit("../x.py")]
    assert check(edits, scope, root, TESTS) == (
        "../x.py is outside the project; edit files under proj/ only"
    )


def test_check_reports_the_first_bad_edit(root: Path) -> None:
    edits = [edit("pkg/calc.py"), edit("tests/test_calc.py"), edit("pkg/missing.py")]
    reason = check(edits, "code", root, TESTS)
    assert reason is not None
    assert reason.startswith("the fix edits test code (tests/test_calc.py)")


@pytest.mark.parametrize(
    ("rel", "test_code"),
    [
        ("tests/utils.py", True),  # arrow's assert_datetime_equality: the tests' own helper
        ("tests/base.py", True),  # marshmallow's User: the tests' data
        ("tests/data/models.py", True),
        ("src/pkg/utils.py", False),
        ("testing/utils.py", False),
        ("other/tests/utils.py", False),  # a tests folder with no collected test file
        ("pkg/test_helpers.py", True),  # python_files glob
    ],
)
def test_the_modules_of_a_tests_folder_are_test_code(rel: str, test_code: bool) -> None:
    tests = TestFiles(frozenset({"tests/test_factory.py", "tests/deep/test_x.py"}))

    assert (rel in tests) is test_code
