"""The settings of runtime healing: the same as ``pytest --heal``'s, from the same places —
flags (``caretaker crashes heal``), then the environment (CARETAKER_MODEL, CARETAKER_API_BASE,
…), then the project's pytest ini keys (heal_model, heal_timeout, …) — and the same automatic
choice of a model when none is configured (llm/models.py's ``choose``).

The ini file is read as pytest would find it in the project's root: pytest.ini (or
.pytest.ini), else pyproject.toml's [tool.pytest.ini_options], tox.ini's [pytest], setup.cfg's
[tool:pytest]. (The same rules as run/ini.py, which is being rewritten; kept here so the runtime
does not depend on it.)
"""

from __future__ import annotations

import configparser
import sys
from collections.abc import Mapping
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli there
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

from pytest_caretaker.options import OPTIONS
from pytest_caretaker.settings import RawValues, SettingError, Settings, resolve

_FILES = (
    ("pytest.ini", "pytest"),
    (".pytest.ini", "pytest"),
    ("pyproject.toml", ""),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)


def settings_for(
    root: Path, env: Mapping[str, str], cli: Mapping[str, object] | None = None
) -> Settings:
    """Resolved and with the model chain chosen; raises SettingError naming the bad value."""
    from pytest_caretaker.llm.models import choose

    try:
        settings = resolve(RawValues(dict(cli or {}), env, ini_values(root)))
    except SettingError as error:  # the table names pytest's flags: --heal-timeout is --timeout
        raise SettingError(str(error).replace("--heal-", "--")) from None
    return choose(settings, env)


def ini_values(root: Path) -> dict[str, object]:
    """The heal_* keys the project's pytest configuration sets, by Settings field."""
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
            raise SettingError(f"cannot read {path}: {first}") from None
        if parser.has_section(section):
            return dict(parser.items(section))
        if name in ("pytest.ini", ".pytest.ini"):
            return {}
    return {}
