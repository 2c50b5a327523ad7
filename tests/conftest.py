from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from pytest_caretaker.testing import ScriptedServer

# Importing litellm must never reach the network for its price table.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _no_caretaker_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("CARETAKER_") or name == "PYTEST_ADDOPTS":
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def _litellm_loaded() -> None:
    # In-process pytester runs restore sys.modules afterwards; a litellm (or libcst) first
    # imported inside one is half-removed and breaks importlib.metadata for the next run.
    # Import them once, outside.
    import libcst  # noqa: F401
    import litellm  # noqa: F401


@pytest.fixture
def llm(_litellm_loaded: None) -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()
