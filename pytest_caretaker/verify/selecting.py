"""Which collected tests a verification run's node ids name, as pytest would choose them, but
without pytest's one refusal: a node id that no test has now.

A test's parameters may be made when it is collected (``datetime.now()``, a counter, a temporary
path): the id the session ran is then gone in the next collection. pytest, given it as an
argument, stops the whole run with "ERROR: not found" and reports nothing; a traced baseline of
200 tests then knew nothing of any. So a run is given the files of its node ids, and the items
they name are chosen after collection, in the order of the node ids; an id that names none is
just not run (its outcome is missing, which every caller reads as "did not run").
Child side: the standard library and pytest only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

Argument = tuple[str, tuple[str, ...]]  # (real path, names after the path)


def argument(nodeid: str) -> Argument:
    """An absolute node id as (real path, parts after the path)."""
    path, _, rest = nodeid.partition("::")
    return os.path.realpath(path), tuple(rest.split("::")) if rest else ()


def normalized(args: list[Argument]) -> list[Argument]:
    """args without those another covers, in their order, as pytest normalizes its arguments:
    sorted, an argument comes right after the one that covers it."""
    order = sorted(range(len(args)), key=lambda i: (Path(args[i][0]).parts, args[i][1], i))
    kept: list[int] = []
    for index in order:
        if not kept or not _covers(args[kept[-1]], args[index]):
            kept.append(index)
    return [args[index] for index in sorted(kept)]


def _covers(one: Argument, other: Argument) -> bool:
    (path, parts), (other_path, other_parts) = one, other
    if path != other_path:
        return not parts and other_path.startswith(path.rstrip(os.sep) + os.sep)
    return other_parts[: len(parts)] == parts


def by_file(items: Iterable[pytest.Item]) -> dict[str, list[pytest.Item]]:
    """Items by the real path of their file, in collection order."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(os.path.realpath(item.path), []).append(item)
    return files


def chosen(
    files: dict[str, list[pytest.Item]], args: Iterable[Argument], strict: bool = True
) -> list[pytest.Item] | None:
    """The items args name, each once, in the order of the args. A name after a collected
    file's path that names none of its items is skipped (a test that is gone); when an
    argument's file or folder has no items at all, None if strict (the warm server did not
    collect it), else it is skipped too."""
    found: dict[int, pytest.Item] = {}
    for path, parts in args:
        if path in files:
            named = [item for item in files[path] if _named(item, parts)]
        else:
            inside = path.rstrip(os.sep) + os.sep
            named = (
                []
                if parts
                else [i for f, its in files.items() if f.startswith(inside) for i in its]
            )
            if not named and strict:
                return None
        found.update((id(item), item) for item in named)
    return list(found.values())


def _named(item: pytest.Item, parts: tuple[str, ...]) -> bool:
    """Whether the names after the path in an argument name item (pytest's matching)."""
    if not parts:
        return True
    names = tuple(item.nodeid.split("::")[1:])
    if len(names) < len(parts) or names[: len(parts) - 1] != parts[:-1]:
        return False
    name, last = names[len(parts) - 1], parts[-1]
    return name == last or ("[" not in last and name.split("[")[0] == last)


class Selection:
    """A fresh run's plugin: pytest is given the node ids' files (``paths``), and this keeps the
    items the node ids name, in their order; the others are deselected."""

    def __init__(self, nodeids: Sequence[str]) -> None:
        self.args = normalized([argument(nodeid) for nodeid in nodeids])
        #: Node ids with a name after the path; a bare file or folder runs whole, as given.
        self.naming = any(parts for _, parts in self.args)

    def paths(self) -> list[str]:
        """What pytest is given: each argument's file or folder, once, in order."""
        return list(dict.fromkeys(path for path, _ in self.args))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if not self.naming:
            return
        kept = chosen(by_file(items), self.args, strict=False) or []
        keep = {id(item) for item in kept}
        gone = [item for item in items if id(item) not in keep]
        if gone:
            config.hook.pytest_deselected(items=gone)
        items[:] = kept
