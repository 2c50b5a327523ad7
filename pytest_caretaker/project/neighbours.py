"""Neighbours: the passing tests rerun with the failing ones, the spectrum's passing side.

At most NEIGHBOURS of a module, those nearest the failing tests first, so that a 10,000-test
module's rerun still fits --heal-timeout.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Passing tests of a failing test's module rerun with it, at most, per module: the spectrum
#: needs some of them, and they are the regression set every fix is verified against, so each
#: one costs time in the traced rerun and in every verification (which --heal-timeout bounds).
NEIGHBOURS = 200


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def neighbours(failing: Sequence[str], passed: Sequence[str], limit: int = NEIGHBOURS) -> list[str]:
    """The passing tests rerun with the failing ones, in the order they ran: those of the
    failures' modules, at most limit of each module. In a bigger module the failing tests'
    parametrized siblings come first, then their class's tests, then tests spread evenly over
    the rest of the module."""
    modules: dict[str, list[str]] = {module_of(nodeid): [] for nodeid in failing}
    for nodeid in passed:
        if module_of(nodeid) in modules:
            modules[module_of(nodeid)].append(nodeid)
    chosen: set[str] = set()
    for module, tests in modules.items():
        if len(tests) <= limit:
            chosen.update(tests)
        else:
            chosen.update(_nearest(tests, [f for f in failing if module_of(f) == module], limit))
    return [nodeid for nodeid in passed if nodeid in chosen]


def _nearest(tests: Sequence[str], failing: Sequence[str], limit: int) -> list[str]:
    functions = {_function(nodeid) for nodeid in failing}
    classes = {_class(nodeid) for nodeid in failing} - {None}
    first = [t for t in tests if _function(t) in functions]
    first += [t for t in tests if _class(t) in classes and _function(t) not in functions]
    picked, taken = first[:limit], set(first)
    rest = [t for t in tests if t not in taken]
    room = min(limit - len(picked), len(rest))
    return picked + [rest[index * len(rest) // room] for index in range(room)]


def _function(nodeid: str) -> str:
    """The test function of a node id (a parametrized case without its parameters)."""
    return nodeid.split("[", 1)[0]


def _class(nodeid: str) -> str | None:
    """The class of a test method's node id; None for a module-level test function."""
    function = _function(nodeid)
    return function.rsplit("::", 1)[0] if function.count("::") >= 2 else None
