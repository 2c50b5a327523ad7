"""Whether models can be asked here: litellm is the extra ``pytest-caretaker[llm]``.

The base install heals with the built-in repairer, remembered fixes and the report; every model
call goes through litellm, which brings ~300 MB and pytest plugins of its own (anyio's), so it is
installed only by those who ask models. Finding out costs a look-up of the module, never its
import. Only the standard library is imported.
"""

from __future__ import annotations

import importlib.util

from pytest_caretaker.settings import BUILTIN, Settings

#: The exact command that brings what models need.
INSTALL = 'pip install "pytest-caretaker[llm]"'


def installed() -> bool:
    """Whether litellm can be imported (found, not imported: that takes seconds)."""
    try:
        return importlib.util.find_spec("litellm") is not None
    except (ImportError, ValueError):  # a finder that refuses it, a broken half-install
        return False


def needs(model: str) -> str:
    """The one line a model that cannot be asked here gets."""
    return f"{model} needs litellm, which is not installed here: {INSTALL}"


def missing(settings: Settings) -> str | None:
    """The one line saying why the chain's models cannot be asked (litellm missing), naming the
    first model and where it was configured; None when they can, or the chain has none."""
    asked = [model for model in settings.models if model != BUILTIN]
    if not asked or installed():
        return None
    where = settings.sources.get("models")
    return needs(f"{where} {asked[0]}" if where else asked[0])
