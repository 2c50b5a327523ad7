"""Which modules a candidate makes stale in a process that imported the project before it.

The warm server (collected.py) imports the session's test modules, and with them the code they
import, once; each run forks from it. A run whose candidate changes a module that is already
imported must not see the old one: that module, and every module that took something from it (a
``from calc import mean`` holds the old function), is *tainted* and is imported again, patched.

Two witnesses, both kept conservative: the import statements the server's modules executed
(recorded while it collected, ImportGraph), and what each module's namespace holds (a module,
a function or class defined in a tainted module, an instance of one, or such a value one level
inside a list, tuple, set or dict). A submodule of a tainted package is tainted too: its package
is imported again without it. Like worker.py it depends on the standard library alone.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: The types whose values are looked into, one level, for values from a tainted module.
_CONTAINERS = (list, tuple, set, frozenset)


class ImportGraph:
    """While installed, records for each module name the modules whose code imported it."""

    def __init__(self) -> None:
        self.importers: dict[str, set[str]] = {}
        self._original: Callable[..., Any] | None = None

    def install(self) -> None:
        self._original = builtins.__import__
        builtins.__import__ = self._import

    def uninstall(self) -> None:
        if self._original is not None:
            builtins.__import__ = self._original
            self._original = None

    def _import(
        self,
        name: str,
        globals: Mapping[str, Any] | None = None,
        locals: Mapping[str, Any] | None = None,
        fromlist: Iterable[str] | None = (),
        level: int = 0,
    ) -> types.ModuleType:
        assert self._original is not None
        module: types.ModuleType = self._original(name, globals, locals, fromlist, level)
        importer = globals.get("__name__") if globals else None
        if isinstance(importer, str):
            # A name it cannot resolve was not imported either.
            with contextlib.suppress(Exception):
                self._record(importer, name, globals or {}, fromlist or (), level)
        return module

    def _record(
        self,
        importer: str,
        name: str,
        globals: Mapping[str, Any],
        fromlist: Iterable[str],
        level: int,
    ) -> None:
        target = name
        if level > 0:
            package = globals.get("__package__")
            if package is None:
                package = importer if "__path__" in globals else importer.rpartition(".")[0]
            target = importlib.util.resolve_name("." * level + name, package)
        targets = [target]
        for item in fromlist:
            if item != "*" and f"{target}.{item}" in sys.modules:
                targets.append(f"{target}.{item}")
        for one in targets:
            self.importers.setdefault(one, set()).add(importer)


def tainted(
    changed: Iterable[str],
    modules: Mapping[str, types.ModuleType],
    importers: Mapping[str, Iterable[str]],
    watched: Iterable[str],
) -> set[str]:
    """The names of the modules that must be imported again when the modules named in changed
    change: those, the modules that imported them or hold what they define, and so on.

    watched: the names of the modules whose namespaces are looked into (the project's own, and
    whichever else may hold its objects); importers: ImportGraph.importers.
    """
    stale = {name for name in changed if name in modules}
    watch = [name for name in watched if name in modules]
    while True:
        grown = set(stale)
        for name in stale:
            grown.update(importers.get(name, ()))
            prefix = name + "."
            grown.update(other for other in modules if other.startswith(prefix))
        for name in watch:
            if name not in grown and _holds(modules[name], grown):
                grown.add(name)
        grown &= set(modules)
        if grown == stale:
            return stale
        stale = grown


def _holds(module: types.ModuleType, stale: set[str]) -> bool:
    """Whether the module's namespace holds something of a stale module."""
    for value in list(vars(module).values()):
        if _from(value, stale):
            return True
        values: Iterable[object] = ()
        if isinstance(value, dict):
            values = [*value.keys(), *value.values()]
        elif isinstance(value, _CONTAINERS):
            values = value
        if any(_from(item, stale) for item in values):
            return True
    return False


def _from(value: object, stale: set[str]) -> bool:
    if isinstance(value, types.ModuleType):
        return value.__name__ in stale
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        return getattr(value, "__module__", None) in stale
    return type(value).__module__ in stale
