"""Whether models can be asked here, and from which environment the model process runs.

The base install heals with the built-in repairer, remembered fixes and the report; every model
call goes through litellm, in the model process (remote.py), from one of two environments:

- the test environment, when litellm is importable in it (the ``[llm]`` extra, for those who
  prefer one environment);
- else caretaker's model environment (modelenv.py), made by ``caretaker model setup``: litellm
  and its dependencies then never touch the project's.

With neither, a model named or found is skipped with one line saying to run the setup, and the
built-in repairer heals alone. Finding out costs a look-up of the module and a small file's
read, never litellm's import. Only the standard library is imported.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from importlib.metadata import PackageNotFoundError, version

from pytest_caretaker.llm import modelenv
from pytest_caretaker.llm.modelenv import Found
from pytest_caretaker.settings import BUILTIN, Settings

#: The exact command that brings what models need, and the one-environment alternative.
INSTALL = f'run `{modelenv.SETUP}` (or pip install "pytest-caretaker[llm]")'
#: The test environment's label in the header.
HERE = "the test environment"


def where(env: Mapping[str, str] = os.environ) -> Found | None:
    """The environment the model process runs from: this one when litellm is importable here,
    else caretaker's model environment when it is set up; None when neither has litellm."""
    if installed():
        try:
            release = version("litellm")
        except PackageNotFoundError:  # importable, but not installed as a distribution
            release = "?"
        return Found(sys.executable, release, HERE)
    return modelenv.found(env)


def installed() -> bool:
    """Whether litellm can be imported here (found, not imported: that takes seconds)."""
    try:
        return importlib.util.find_spec("litellm") is not None
    except (ImportError, ValueError):  # a finder that refuses it, a broken half-install
        return False


def needs(model: str) -> str:
    """The one line a model that cannot be asked gets."""
    return f"{model} needs litellm: {INSTALL}"


def skipped(settings: Settings, env: Mapping[str, str] = os.environ) -> Settings:
    """The settings with the chain's models left out when no environment has litellm: the
    built-in repairer heals alone, and the reason says, in one line, what to run."""
    asked = [model for model in settings.models if model != BUILTIN]
    if not asked or where(env) is not None:
        return settings
    where_named = settings.sources.get("models")
    named = f"{where_named} {asked[0]}" if where_named else asked[0]
    return replace(settings, models=(BUILTIN,), reason=f"{needs(named)}; builtin heals alone")
