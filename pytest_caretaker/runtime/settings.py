"""The settings of runtime healing: the same as ``pytest --heal``'s, from the same places —
flags (``caretaker crashes heal``), then the environment (CARETAKER_MODEL, CARETAKER_API_BASE,
…), then the project's pytest ini keys (heal_model, heal_timeout, …) — and the same automatic
choice of a model when none is configured (llm/models.py's ``choose``).

The ini file is read as ``caretaker run`` reads it (config.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pytest_caretaker.settings import RawValues, SettingError, Settings, resolve
from pytest_caretaker.settings.config import ini_values


def settings_for(
    root: Path, env: Mapping[str, str], cli: Mapping[str, object] | None = None
) -> Settings:
    """Resolved and with the model chain chosen; raises SettingError naming the bad value."""
    from pytest_caretaker.llm.models import choose

    try:
        settings = resolve(RawValues(dict(cli or {}), env, ini_values(root)))
    except SettingError as error:  # the table names pytest's flags: --heal-timeout is --timeout
        raise SettingError(str(error).replace("--heal-", "--")) from None
    return choose(settings, env)  # a model without litellm: left out, and the reason says so
