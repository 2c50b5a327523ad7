"""Caretaker's own references to the standard library, taken before any test runs.

A project's tests patch what caretaker's machinery runs on: ``mock.patch("subprocess.Popen")``
in a class- or session-scoped fixture, ``time.monotonic`` frozen, ``socket.socket`` refused, a
patch a test never undoes. Caretaker works in the process that runs the tests — it records a
failure and starts its verification server between two tests, and heals after the last — so a
patch still in place then would be what it uses: a fake ``Popen`` whose ``stdout`` is a
``BytesIO`` stopped a heal with "UnsupportedOperation('fileno')".

So this module, imported with the plugin (before any conftest or test module), keeps every
function and class of the modules below as they were then, in a dict (a tool that replaces the
real ``time.time`` wherever it finds it in a module's namespace, as freezegun does, looks in no
dict). Not ``threading``'s: a project that runs on gevent has them replaced for good, and a real
thread among its green ones would fail. ``restored`` puts them back for the span of caretaker's
own work in the main thread, and puts back afterwards whatever a test had put there, so the
test's own teardown undoes its patch as it expects. Caretaker's threads that run beside the
tests use the references here directly (``Popen``, ``socket``), since nothing may be swapped
under a running test. Standard library only: everything imports it.
"""

from __future__ import annotations

import builtins
import contextlib
import datetime
import functools
import io
import os
import select
import selectors
import shutil
import signal
import socket as _socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import ParamSpec, TypeVar

_MODULES: tuple[ModuleType, ...] = (
    *(builtins, os, os.path, subprocess, _socket, select, selectors, signal, time),
    *(shutil, tempfile, io, datetime),
)
_MISSING = object()


def _take(module: ModuleType) -> dict[str, object]:
    """The functions and classes of module (its dunders only for builtins: ``__import__``); not
    the hooks others install on purpose (``sys.excepthook``'s kind)."""
    return {
        name: value
        for name, value in vars(module).items()
        if callable(value)
        and (module is builtins or not name.startswith("__"))
        and not name.endswith("hook")
    }


_TAKEN: dict[str, tuple[ModuleType, dict[str, object]]] = {
    module.__name__: (module, _take(module)) for module in _MODULES
}

#: For caretaker's threads that may run while a test does.
Popen = subprocess.Popen
socket = _socket.socket


def replaced() -> list[str]:
    """What differs now from what was taken ("subprocess.Popen"): what a test put in place."""
    return [
        f"{module.__name__}.{name}"
        for module, taken in _TAKEN.values()
        for name, value in taken.items()
        if vars(module).get(name, _MISSING) is not value
    ]


@contextlib.contextmanager
def restored() -> Iterator[None]:
    """Within: every reference taken is where it was taken from. Afterwards each replacement a
    test had made is back, unless something put yet another one there meanwhile."""
    swapped: list[tuple[dict[str, object], str, object, object]] = []
    for module, taken in _TAKEN.values():
        namespace = vars(module)
        for name, value in taken.items():
            current = namespace.get(name, _MISSING)
            if current is not value:
                swapped.append((namespace, name, current, value))
                namespace[name] = value
    try:
        yield
    finally:
        for namespace, name, current, value in reversed(swapped):
            if namespace.get(name, _MISSING) is value:
                if current is _MISSING:
                    del namespace[name]
                else:
                    namespace[name] = current


P = ParamSpec("P")
R = TypeVar("R")


def restoring(function: Callable[P, R]) -> Callable[P, R]:
    """function, run with the references restored (a hook of caretaker's)."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with restored():
            return function(*args, **kwargs)

    return run
