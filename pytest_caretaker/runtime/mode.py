"""The runtime's mode and project root, read from the environment: standard library only, since
every decorated import reads them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, Protocol

from pytest_caretaker.children import is_worker
from pytest_caretaker.settings.config import find_root

Mode = Literal["off", "record", "heal"]
MODES: tuple[Mode, ...] = ("off", "record", "heal")
MODE_ENV = "CARETAKER_RUNTIME"
ROOT_ENV = "CARETAKER_ROOT"


class Store(Protocol):
    """Where proven fixes are kept, by key (the id and the function's source hash): the
    default is a folder of files under .caretaker/; a database does as well."""

    def get(self, key: str) -> str | None: ...

    def save(self, key: str, code: str) -> None: ...


def resolve_mode(given: str | None) -> Mode:
    """given, else $CARETAKER_RUNTIME, else record; off in caretaker's own children. Raises
    ValueError for a mode that does not exist, naming the way out."""
    if is_worker(os.environ):  # caretaker's own child (children.py)
        return "off"
    where = "mode=" if given is not None else f"${MODE_ENV}"
    value = (given if given is not None else os.environ.get(MODE_ENV, "")).strip().lower()
    value = value or "record"
    for mode in MODES:
        if value == mode:
            return mode
    raise ValueError(f"caretaker: {where} is {value!r}; use one of off, record, heal")


def project_root(near: str | None) -> Path:
    """$CARETAKER_ROOT, else the project that holds the file near (the code that failed), else
    the one around the working directory."""
    given = os.environ.get(ROOT_ENV, "").strip()
    if given:
        return Path(given).resolve()
    if near and os.path.isfile(near):
        return find_root(Path(near).parent)
    return find_root(Path.cwd())
