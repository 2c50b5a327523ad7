"""Hot-swap a proven fix into the running process: each function the fix replaces gets the code
compiled from the patched file (``__code__``, so every reference to the function sees it: the
decorated wrapper, an alias, a bound method); a new helper, an import or a replaced assignment
is executed in its module's namespace. All is compiled before anything is swapped, so a fix is
swapped whole or not at all.

A function's new code comes from compiling the whole patched file and taking the code object of
the same qualified name: its line numbers, its name mangling and its ``__class__`` cell are
those of the file. A nested function (with variables of an enclosing function) is not swapped.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_caretaker.results import Edit


class NotSwapped(Exception):
    """Why a fix cannot be put into the running process (a sentence)."""


def swap(edits: Sequence[Edit], patched: Mapping[str, bytes], root: Path) -> list[str]:
    """Put edits (patched: root-relative path -> the file's new bytes) into the running
    process; the qualified names swapped. Raises NotSwapped, having swapped nothing."""
    steps: list[Callable[[], None]] = []
    done: list[str] = []
    for edit in edits:
        module = _module(root / edit.path)
        if module is None:  # not imported here: the disk's version is what a later import gets
            continue
        if edit.kind == "replace":
            steps.append(_replacing(edit, module, patched.get(edit.path)))
        elif edit.kind == "helper" and "." in edit.qualname:  # a new method of a loaded class
            *path, name = edit.qualname.split(".")
            owner: Any = module
            for part in path:
                owner = _member(owner, part, edit)
            steps.append(_assigning(edit, module, owner, name))
        else:
            steps.append(_executing(edit.source, module.__dict__, str(module.__file__)))
        done.append(edit.qualname)
    for step in steps:
        step()
    return done


def _module(path: Path) -> types.ModuleType | None:
    """The loaded module whose file is path (the script run is ``__main__``)."""
    try:
        wanted = os.stat(path)
    except OSError:
        return None
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str):
            continue
        try:
            found = os.stat(file)
        except OSError:
            continue
        if (found.st_dev, found.st_ino) == (wanted.st_dev, wanted.st_ino):
            return module
    return None


def _replacing(edit: Edit, module: types.ModuleType, patched: bytes | None) -> Callable[[], None]:
    parts = edit.qualname.split(".")
    owner: Any = module
    for part in parts[:-1]:
        owner = _member(owner, part, edit)
    live = _function(_member(owner, parts[-1], edit))
    if live is None:  # an assignment (a constant, a lambda): run it where it stands
        return _assigning(edit, module, owner, parts[-1])
    if patched is None:
        raise NotSwapped(f"the fix's new {edit.path} is not known")
    filename = live.__code__.co_filename
    try:
        compiled = compile(patched, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        raise NotSwapped(f"the fixed {edit.path} does not compile: {error}") from None
    code = _find(compiled, parts)
    if code is None:
        raise NotSwapped(f"{edit.qualname} is not in the fixed {edit.path}")
    if code.co_freevars != live.__code__.co_freevars:
        raise NotSwapped(
            f"{edit.qualname} uses variables of an enclosing scope "
            f"({', '.join(code.co_freevars or live.__code__.co_freevars)}); it cannot be swapped"
        )

    def replace() -> None:
        live.__code__ = code

    return replace


def _assigning(edit: Edit, module: types.ModuleType, owner: Any, name: str) -> Callable[[], None]:
    space: dict[str, Any] = module.__dict__ if owner is module else {}
    run = _executing(edit.source, space, str(module.__file__))
    if owner is module:
        return run

    def in_class() -> None:
        space.update(module.__dict__)
        known = set(space)
        run()
        for key, value in space.items():
            if key not in known or key == name:
                setattr(owner, key, value)

    return in_class


def _member(owner: Any, name: str, edit: Edit) -> Any:
    space = getattr(owner, "__dict__", {})
    if name in space:
        return space[name]
    if hasattr(owner, name):
        return getattr(owner, name)
    raise NotSwapped(f"{edit.qualname} is not defined in the running {edit.path}")


def _function(found: Any) -> types.FunctionType | None:
    """The plain function under decorators (staticmethod, classmethod, functools.wraps)."""
    for _ in range(20):
        if isinstance(found, (staticmethod, classmethod)):
            found = found.__func__
        elif isinstance(found, types.FunctionType) and not hasattr(found, "__wrapped__"):
            return found
        elif hasattr(found, "__wrapped__"):
            found = found.__wrapped__
        else:
            return None
    return None


def _find(code: types.CodeType, parts: Sequence[str]) -> types.CodeType | None:
    """The code object of parts (a qualified name) among code's nested code objects."""
    if not parts:
        return code
    for inner in _nested(code):
        if inner.co_name == parts[0]:
            found = _find(inner, parts[1:])
            if found is not None:
                return found
    return None


def _nested(code: types.CodeType) -> Iterator[types.CodeType]:
    return (const for const in code.co_consts if isinstance(const, types.CodeType))


def _executing(source: str, space: dict[str, Any], filename: str) -> Callable[[], None]:
    try:
        compiled = compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        raise NotSwapped(f"the fix's code does not compile: {error}") from None

    def run() -> None:
        exec(compiled, space)

    return run
