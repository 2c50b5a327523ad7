"""taint.py: which already imported modules a change makes stale, and the import graph."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from pytest_caretaker.verify.taint import ImportGraph, tainted


def module(name: str, **namespace: object) -> types.ModuleType:
    made = types.ModuleType(name)
    made.__dict__.update(namespace)
    return made


def function_of(module_name: str) -> types.FunctionType:
    def function() -> None:
        pass

    function.__module__ = module_name
    return function  # type: ignore[return-value]


Shape = type("Shape", (), {"__module__": "shapes"})

MODULES = {
    "calc": module("calc"),
    "shapes": module("shapes", Shape=Shape),
    "pkg": module("pkg"),
    "pkg.core": module("pkg.core"),
    "pkg.other": module("pkg.other"),
    "by_import": module("by_import"),
    "holds_module": module("holds_module"),
    "holds_function": module("holds_function", mean=function_of("calc")),
    "holds_instance": module("holds_instance", square=Shape()),
    "holds_in_a_list": module("holds_in_a_list", cases=[1, function_of("calc")]),
    "holds_in_a_dict": module("holds_in_a_dict", table={"mean": function_of("calc")}),
    "second_hand": module("second_hand"),
    "unrelated": module("unrelated", value=3, items=[1, 2], text="calc"),
}
MODULES["holds_module"].calc = MODULES["calc"]  # type: ignore[attr-defined]
MODULES["second_hand"].helper = MODULES["holds_function"]  # type: ignore[attr-defined]
IMPORTERS = {"calc": {"by_import"}, "pkg.core": {"pkg"}}


@pytest.mark.parametrize(
    ("changed", "stale"),
    [
        (
            "calc",
            {
                "calc",
                "by_import",
                "holds_module",
                "holds_function",
                "holds_in_a_list",
                "holds_in_a_dict",
                "second_hand",
            },
        ),
        ("shapes", {"shapes", "holds_instance"}),
        # A package imported again loses its submodules: they go with it.
        ("pkg.core", {"pkg.core", "pkg", "pkg.other"}),
        ("pkg.other", {"pkg.other"}),
        ("not_imported", set()),
    ],
)
def test_stale_modules(changed: str, stale: set[str]) -> None:
    assert tainted([changed], MODULES, IMPORTERS, MODULES) == stale


def test_only_watched_namespaces_are_looked_into() -> None:
    assert tainted(["calc"], MODULES, {}, ["holds_module"]) == {"calc", "holds_module"}


@pytest.fixture
def graph() -> Iterator[ImportGraph]:
    recorder = ImportGraph()
    recorder.install()
    try:
        yield recorder
    finally:
        recorder.uninstall()


def test_the_graph_records_who_imported_what(graph: ImportGraph) -> None:
    code = "import json\nfrom os import path\nfrom email import message\nfrom . import sibling\n"
    namespace: dict[str, object] = {"__name__": "pkg.importer", "__package__": "pkg"}
    sys.modules.setdefault("pkg", module("pkg", __path__=[]))
    sys.modules.setdefault("pkg.sibling", module("pkg.sibling"))
    try:
        exec(compile(code, "<importer>", "exec"), namespace)
    finally:
        sys.modules.pop("pkg.sibling", None)
        sys.modules.pop("pkg", None)
    graph.uninstall()

    # Each name imported, the submodules taken from a package, and a relative import resolved.
    for name in ("json", "os", "os.path", "email", "email.message", "pkg", "pkg.sibling"):
        assert "pkg.importer" in graph.importers[name], name
