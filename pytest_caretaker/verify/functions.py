"""The project's function objects by place (real path, qualname, first line): what a trial
swaps the code of (trial_server.py).

The trial server indexes them once, after collection. A module the tests import only when they
run (cachetools imports ``._cached`` inside ``cached()``) has no function objects then, and every
candidate of it went to the ordinary verifier: ~1.5 s each there against ~30 ms in a trial, so a
20 s search of such code tried ~100 candidates. ``Index.find`` imports such a module in the server
the first time a candidate names it, as the tests would when they ran, and indexes what it made.
The server runs in the sandbox, and imports the project's own code, unchanged.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import types
from pathlib import Path

from pytest_caretaker.project.files import project_relpath

Place = tuple[str, str, int]  # (real path, qualname, first line)
Functions = dict[Place, list[types.FunctionType]]


class Index:
    """The project's functions; a module imported late is imported when first asked for."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.functions = project_functions(root)
        self._asked: set[str] = set()  # real paths whose import was tried

    def find(self, path: str, qualname: str, line: int) -> list[types.FunctionType]:
        place = (os.path.realpath(path), qualname, line)
        if place not in self.functions and place[0] not in self._asked:
            self._asked.add(place[0])
            if imported(place[0]):
                # The index was made before gc.freeze(): only what came since is listed now.
                for where, found in project_functions(self.root).items():
                    known = self.functions.setdefault(where, [])
                    known.extend(function for function in found if function not in known)
                gc.freeze()  # the forks share the new objects copy-on-write, like the rest
        return self.functions.get(place, [])


def project_functions(root: Path) -> Functions:
    """Every function object of the project under root that the garbage collector lists, by
    (real path, qualname, first line). Frozen objects are not listed: call it before gc.freeze().
    """
    functions: Functions = {}
    real: dict[str, str | None] = {}
    for candidate in gc.get_objects():
        if not isinstance(candidate, types.FunctionType):
            continue
        code = candidate.__code__
        filename = code.co_filename
        if filename not in real:
            resolved = os.path.realpath(filename)
            inside = project_relpath(resolved, root) is not None
            real[filename] = resolved if inside else None
        where = real[filename]
        if where is not None:
            qualname = getattr(code, "co_qualname", candidate.__qualname__)
            functions.setdefault((where, qualname, code.co_firstlineno), []).append(candidate)
    return functions


def imported(real: str) -> bool:
    """Import the module of the file at real (a real path) if no module of it is imported yet;
    whether that made it. Only a module of an imported package, or a top-level one."""
    name = module_name(real)
    if name is None or name in sys.modules:
        return False
    try:
        module = importlib.import_module(name)
    except Exception:  # the tests would fail the same way: nothing to swap, verify it otherwise
        return False
    file = getattr(module, "__file__", None)
    return file is not None and os.path.realpath(file) == real


def module_name(real: str) -> str | None:
    """The dotted name the file at real is imported by, from sys.path: one whose package is
    imported already (``src.pkg.mod`` is not ``pkg.mod`` when ``src`` is on sys.path too)."""
    if not real.endswith(".py"):
        return None
    for entry in sys.path:
        base = os.path.realpath(entry or os.getcwd())
        if not real.startswith(base + os.sep):
            continue
        parts = os.path.relpath(real, base)[: -len(".py")].split(os.sep)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        package = name.rpartition(".")[0]
        named = bool(parts) and all(part.isidentifier() for part in parts)
        if named and (not package or package in sys.modules):
            return name
    return None
