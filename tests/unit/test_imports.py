"""Which test files reach a project file through imports (project/imports.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.imports import conftests, imported, importers
from pytest_caretaker.regression import affected

FILES = {
    "src/pkg/__init__.py": "",
    "src/pkg/prices.py": "def unit(t, n):\n    return t / n\n",
    "src/pkg/report.py": "from . import prices\n",
    "src/pkg/other.py": "import json\n",
    "tests/helpers.py": "def build():\n    from pkg.report import prices\n    return prices\n",
    "tests/test_direct.py": "import pkg.prices\n",
    "tests/test_through.py": "from pkg.report import prices\n",
    "tests/test_helper.py": "import helpers\n",
    "tests/test_other.py": "from pkg import other\n",
    "tests/test_nothing.py": "import os\n",
}


def project(tmp_path: Path) -> ProjectFiles:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return ProjectFiles(tmp_path)


def test_a_files_imports_resolve_to_project_files_packages_included(tmp_path: Path) -> None:
    files = project(tmp_path)
    assert imported("tests/test_direct.py", files.get) == {
        "src/pkg/__init__.py",
        "src/pkg/prices.py",
    }
    assert imported("src/pkg/report.py", files.get) == {"src/pkg/prices.py"}
    assert imported("tests/test_helper.py", files.get) == {"tests/helpers.py"}  # a sibling
    assert imported("tests/test_nothing.py", files.get) == set()


def test_the_importers_of_a_file_directly_through_modules_and_helpers(tmp_path: Path) -> None:
    files = project(tmp_path)
    tests = [rel for rel in FILES if rel.startswith("tests/test_")]
    assert importers({"src/pkg/prices.py"}, tests, files.get) == {
        "tests/test_direct.py",
        "tests/test_through.py",
        "tests/test_helper.py",  # helpers imports it inside a function
    }
    # A package's __init__ is imported with any of its modules.
    assert "tests/test_other.py" in importers({"src/pkg/__init__.py"}, tests, files.get)


DOCTEST_FILES = {
    # A doctest text file (pytest --doctest-glob='*.rst'): its examples import the package.
    "docs/usage.rst": (
        "Prices\n======\n\nSome prose: import nothing here.\n\n"
        "    >>> from pkg.report import prices\n    >>> prices.unit(6, 3)\n    2.0\n"
    ),
    "docs/arithmetic.rst": "Sums\n====\n\n    >>> 1 + 1\n    2\n",
    "docs/broken.rst": "    >>> import (\n    >>> import pkg.prices\n",  # one example parses
    # Not doctest text: its expected output is indented less than its example.
    "docs/not_doctest.txt": "    >>> import pkg.prices\n  x\n",
}


def test_a_doctest_text_file_imports_what_its_examples_import(tmp_path: Path) -> None:
    # A fix that changes what a documentation page's examples call can break that page's
    # doctest: regression.affected reruns it only if it is seen to import the file.
    files = project(tmp_path)
    for rel, text in DOCTEST_FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")

    assert imported("docs/usage.rst", files.get) == {"src/pkg/__init__.py", "src/pkg/report.py"}
    assert importers({"src/pkg/prices.py"}, list(DOCTEST_FILES), files.get) == {
        "docs/usage.rst",  # through pkg.report
        "docs/broken.rst",  # its second example
    }
    assert imported("docs/arithmetic.rst", files.get) == set()
    assert imported("docs/not_doctest.txt", files.get) == set()


def test_a_doctest_text_file_imports_what_the_sessions_conftests_import(tmp_path: Path) -> None:
    # Its examples may use names a conftest's doctest_namespace fixture gives, with no import
    # in the text; that namespace is the session's, whichever conftest filled it (semver's
    # docs/*.rst get `semver` from tests/conftest.py).
    files = project(tmp_path)
    texts = {
        "tests/conftest.py": "import pytest\nimport pkg.prices\n",
        "docs/guide/page.rst": "    >>> prices.unit(6, 3)\n    2.0\n",
    }
    for rel, text in texts.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    session = ["tests/test_nothing.py", "docs/guide/page.rst"]
    shared = conftests(session, files.get)

    assert shared == {"tests/conftest.py"}
    assert importers({"src/pkg/prices.py"}, session, files.get, shared) == {"docs/guide/page.rst"}
    assert importers({"src/pkg/prices.py"}, session, files.get) == set()
    # A Python test file imports what it tests itself: the conftests are not counted for it.
    assert importers({"src/pkg/prices.py"}, ["tests/test_nothing.py"], files.get, shared) == set()
    # The proof of a fix of prices.py reruns the page (regression.affected, the Wider check).
    passed = ["tests/test_nothing.py::test_os", "docs/guide/page.rst::page.rst"]
    assert affected({"src/pkg/prices.py"}, passed, (), files.get) == [passed[1]]
