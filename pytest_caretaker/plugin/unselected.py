"""The tests a run did not run: what a fix must not break although the run never looked at them.

Under ``-k``, ``-m``, ``--deselect`` or ``--sw`` pytest deselects tests (``pytest_deselected``
names them); under ``-x`` or ``--maxfail`` it stops before some; under a node id
(``tests/test_a.py::test_x``), and under ``--lf`` since pytest 8, it never collects the rest of
the module. Their status is not known,
so the engine reruns them in the baseline with the failing tests, and those of the failing tests'
modules that pass there join the regression set: a fix healing ``test_area`` under ``-k area``
cannot break ``test_perimeter`` unseen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from pytest_caretaker.project.files import project_relpath


class Unselected:
    """A plugin the recorder registers: which of the collected tests ran, which were deselected.

    In a pytest-xdist worker only the deselected ones count (a worker collects every test and
    runs its share); the controller collects none, so nothing there is unreached.
    """

    def __init__(self) -> None:
        self.collected: list[str] = []
        self.deselected: list[str] = []
        self.ran: set[str] = set()

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        self.deselected += [item.nodeid for item in items]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = [item.nodeid for item in session.items]

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.ran.add(nodeid)

    def unreached(self) -> list[str]:
        """Collected and selected, but not run (the run stopped first)."""
        return [nodeid for nodeid in self.collected if nodeid not in self.ran]

    def all(self) -> list[str]:
        """Every test of the run it did not run, deselected ones first, each once."""
        return list(dict.fromkeys([*self.deselected, *self.unreached()]))


def whole_files(config: pytest.Config, root: Path, failing: Iterable[str]) -> frozenset[str]:
    """The failing tests' files of which the run collected only some tests: those it chose by
    node id, and under ``--lf`` every one (pytest collects only a module's failures then)."""
    files = by_node_id(config.args, config.invocation_params.dir, root)
    if config.getoption("lf", False):
        files |= {nodeid.split("::", 1)[0] for nodeid in failing}
    return files


def by_node_id(args: Iterable[str], invocation_dir: Path, root: Path) -> frozenset[str]:
    """The test files (relative to root) that the run's arguments chose tests of by node id
    (``path::name``): their other tests were never collected."""
    files: set[str] = set()
    for arg in args:
        path, sep, _ = arg.partition("::")
        if sep:
            rel = project_relpath(str(invocation_dir / path), root)
            if rel is not None:
                files.add(rel)
    return frozenset(files)
