"""Dotenvs: the project's secret files that candidate code is shown as empty files.

The redactor learns the values of the project's ``.env*`` files (sources.py), but it matches a
value in the forms it knows; a candidate that reads the file can print the value in a form it does
not (split into pieces and reversed, #46). So the sandbox's view (verify/view.py) shows each such
file as an empty file, which no encoding can leak, unless the project reads it: then its tests
need it, and the redactor's matching without separators (redact.py) is what stands.

Nothing records which files a test opens, so "the project reads it" is decided from the code
before any run: a Python file of the project (a test, a conftest, the code under test) names the
file in a string literal (``".env"``, ``"config/.env.test"``), or calls a loader that finds it by
itself (``load_dotenv``, ``dotenv_values``, ``find_dotenv``, django-environ's ``read_env``,
pydantic-settings' ``env_file``), or the pytest configuration names ``env_files``
(pytest-dotenv). A file read otherwise (a name computed at run time) is shown empty, and a test
that needs it fails in the sandbox as it would without the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pytest_caretaker.record.sources import project_files, searched

#: Calls that load a .env file they find by themselves: every .env of the project counts as read.
_LOADERS = re.compile(
    rb"\b(?:load_dotenv|dotenv_values|find_dotenv|read_dotenv|read_env|env_file)\b"
)
#: pytest-dotenv's setting, in the files pytest reads its configuration from.
_PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")
_PYTEST_DOTENV = re.compile(rb"(?m)^\s*env_files\s*=")
#: Most Python files read, and the largest one, and how deep.
MAX_PY_FILES = 3_000
MAX_PY_SIZE = 500_000
MAX_DEPTH = 8


def unread(root: Path) -> list[str]:
    """The absolute paths of the project's .env files (as sources.py finds them) that its code
    does not read: the files candidates see empty."""
    dotenvs = project_files(root)[0]
    if not dotenvs:
        return []
    read = read_by_project(root, [path.name for path in dotenvs])
    return [str(path) for path in dotenvs if path.name not in read]


def read_by_project(root: Path, names: list[str]) -> set[str]:
    """Which of the file names the project reads (the module docstring says how that is told)."""
    if any(_PYTEST_DOTENV.search(_head(root / config)) for config in _PYTEST_CONFIGS):
        return set(names)
    literals = {
        name: re.compile(rb"[\"'](?:[^\"'\n]*/)?" + re.escape(name.encode()) + rb"[\"']")
        for name in names
    }
    read: set[str] = set()
    for path in python_files(root):
        data = _head(path, MAX_PY_SIZE)
        if _LOADERS.search(data):
            return set(names)
        read.update(name for name, literal in literals.items() if literal.search(data))
        if len(read) == len(names):
            break
    return read


def _head(path: Path, size: int = 64_000) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(size)
    except OSError:
        return b""


def python_files(root: Path) -> list[Path]:
    """The project's .py files, breadth first, outside hidden folders, virtual environments and
    builds (as sources.py searches), at most MAX_PY_FILES."""
    found: list[Path] = []
    todo = [(str(root), 0)]
    while todo and len(found) < MAX_PY_FILES:
        folder, depth = todo.pop(0)
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH and searched(entry):
                        todo.append((entry.path, depth + 1))
                elif entry.name.endswith(".py") and entry.is_file(follow_symlinks=False):
                    found.append(Path(entry.path))
            except OSError:
                continue
    return found[:MAX_PY_FILES]
