"""Which test files reach a project file through imports (project/imports.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.imports import imported, importers

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
