"""Where a project is, and what its pytest configuration says about healing, for the commands
that run outside pytest (``caretaker run``, ``caretaker report``, runtime healing).

The root is the nearest folder up holding a marker (as pytest looks for its rootdir). The ini
keys (``heal_model``, ``heal_timeout``, …) are read from the file pytest would read there:
pytest.ini (or .pytest.ini), else pyproject.toml's [tool.pytest.ini_options], tox.ini's
[pytest], setup.cfg's [tool:pytest]. Values come back as pytest's getini gives them: text, a list
for "linelist" keys, a bool for TOML booleans; Option.convert parses them with the same rules.
Only os and pathlib are imported until the ini file is read: runtime healing imports this at
start-up.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The files and folders that mark a project's root.
ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", ".git")


def find_root(start: Path) -> Path:
    """The nearest folder at or above start that holds a project marker; start when none."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in ROOT_MARKERS):
            return folder
    return start


#: (file, section) in pytest's order; a pytest.ini is used even without its section.
_FILES = (
    ("pytest.ini", "pytest"),
    (".pytest.ini", "pytest"),
    ("pyproject.toml", ""),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)


def ini_values(root: Path) -> dict[str, object]:
    """The heal_* keys the project's pytest configuration sets, by Settings field; raises
    SettingError when that file cannot be read."""
    from pytest_caretaker.settings.options import OPTIONS

    section = _section(root)
    values: dict[str, object] = {}
    for option in OPTIONS:
        if option.ini is None or option.ini not in section:
            continue
        raw = section[option.ini]
        if option.kind == "linelist" and isinstance(raw, str):
            raw = [line.strip() for line in raw.splitlines() if line.strip()]
        values[option.name] = raw
    return values


def _section(root: Path) -> dict[str, object]:
    import configparser

    from pytest_caretaker.settings.parsers import SettingError

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pytest depends on tomli there
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

    for name, section in _FILES:
        path = root / name
        if not path.is_file():
            continue
        try:
            if name == "pyproject.toml":
                data = tomllib.loads(path.read_text(encoding="utf-8"))
                options = data.get("tool", {}).get("pytest", {}).get("ini_options")
                if isinstance(options, dict):
                    return dict(options)
                continue
            parser = configparser.ConfigParser(interpolation=None)
            parser.read_string(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError, ValueError, configparser.Error) as error:
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            said = f"cannot read {path}: {first}; fix it or run from elsewhere"
            raise SettingError(said) from None
        if parser.has_section(section):
            return dict(parser.items(section))
        if name in ("pytest.ini", ".pytest.ini"):
            return {}
    return {}
