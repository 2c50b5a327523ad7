"""The warm server's session: pytest configured and the session's test files collected once, a
run forked from it per request that costs only the tests it runs.

warm.py starts a pytest session over the test files the Runner names. Instead of running them it
serves (pytest_runtestloop): each request forks a child which picks the collected items of its
node ids and runs them through pytest's own protocol and reporting, with its own limits
(timer.py), tracer and temporary folder, then returns its result like worker.py's run_spec.

A candidate's bytes must be what the tests see. Modules not yet imported are patched at import
by the PatchFinder that the session put in front of every finder. Modules the server already
imported and the candidate changes are stale, with every module that took something from them
(taint.py): the child drops them from sys.modules and collects the test modules among them again,
so they import the candidate's code. Where that cannot give what a fresh session would — a stale
conftest or plugin, a node id the server did not collect, an item of a kind other than a
Python test module's — the child runs the whole session afresh (worker.py's run_spec) with every
project module dropped, which is what a warm run cost before. One difference from a fresh
process remains: what a stale module's import did to a module that is not stale (registered
itself in a library's registry, say) is done again, on top.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import IO

import pytest

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.verify import pytest_private
from pytest_caretaker.verify.channel import cap_memory, learn_module_files
from pytest_caretaker.verify.protocol import RunReport, RunSpec
from pytest_caretaker.verify.selecting import argument, by_file, chosen, normalized
from pytest_caretaker.verify.swap import PatchFinder, Tracer, file_id
from pytest_caretaker.verify.taint import ImportGraph, tainted
from pytest_caretaker.verify.timer import Limits
from pytest_caretaker.verify.worker import WorkerPlugin, load_patches, run_spec

#: Serve one request: fork a child that runs the spec at this path; the child's wait status.
Serve = Callable[[Callable[[str], RunReport], str], int]


class CollectedSession(WorkerPlugin):
    """The server's plugin: collects through the session, then serves runs instead of running."""

    def __init__(
        self, root: Path, commands: IO[str], serve: Serve, ready: Callable[[], None]
    ) -> None:
        super().__init__(root, {}, trace=False, limits=Limits(None, float("inf")))
        self.root = root
        self.commands = commands
        self.serve = serve
        self.ready = ready  # says the server is ready, once
        self.graph = ImportGraph()
        self.served = False
        self.session: pytest.Session | None = None
        self._project: list[str] = []
        self._files: dict[str, list[pytest.Item]] = {}
        self._by_id: dict[tuple[int, int], list[str]] = {}  # the project's modules by file

    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config: pytest.Config) -> None:
        super().pytest_load_initial_conftests(early_config)
        self.graph.install()  # conftests import the project too

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.graph.uninstall()
        self.session = session
        self.served = True
        # A thread started while collecting would not survive the fork (a lock it holds would
        # never be released): then every run is a fresh session in the child.
        fresh = threading.active_count() > 1 or session.config.option.collectonly
        self._project = [
            name for name, module in sys.modules.items() if _in_project(module, self.root)
        ]
        for name in self._project:  # only the project's files are ever patched
            key = file_id(getattr(sys.modules[name], "__file__", "") or "")
            if key is not None:
                self._by_id.setdefault(key, []).append(name)
        self._files = by_file(session.items)
        learn_module_files()
        gc.freeze()  # children share the server's memory copy-on-write; a collection touches all
        self.ready()
        for line in self.commands:
            if line.strip():
                self.serve(self.run_fresh if fresh else self.run, line.strip())
        return True

    # -- in a forked child -------------------------------------------------------------------

    def run_fresh(self, spec_path: str) -> RunReport:
        """The whole session afresh, every project module imported again."""
        for name in self._project:
            sys.modules.pop(name, None)
        # The session run_spec starts puts its own import hooks in front.
        sys.meta_path[:] = [f for f in sys.meta_path if not _session_hook(f)]
        return run_spec(spec_path)

    def run(self, spec_path: str) -> RunReport:
        spec: RunSpec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
        assert self.session is not None
        session, config = self.session, self.session.config
        cap_memory()
        self.outcomes, self.collect_errors = {}, []  # the server's collection is not this run's
        patches = load_patches(spec)
        stale = self._stale(patches)
        if stale is None:
            return self.run_fresh(spec_path)
        for name in stale:
            sys.modules.pop(name, None)
        self.patches.update(patches)  # the PatchFinder in front of sys.meta_path serves these
        items = self._select(session, spec["nodeids"], stale)
        if items is None:
            return self.run_fresh(spec_path)
        self.tracer = Tracer(self.root) if spec["trace"] else None
        self.time_limits.limits = Limits(
            spec["test_limit"], spec["run_limit"], scale=spec["limit_scale"]
        )
        args = spec["args"]
        basetemp = Path(args[len(args) - args[::-1].index("--basetemp")])
        pytest_private.fresh_run(config, basetemp)
        # As pytest does, a test module that does not import stops the run before any test.
        exit_code = _run_items(session, items, len(self.collect_errors))
        config.hook.pytest_sessionfinish(session=session, exitstatus=exit_code)
        return self.result(int(exit_code))

    def _stale(self, patches: dict[tuple[int, int], bytes]) -> set[str] | None:
        """The modules to import again for these patches; None when only a fresh session will
        do (a conftest or plugin would be stale)."""
        changed = [name for key in patches for name in self._by_id.get(key, ())]
        if not changed:
            return set()
        assert self.session is not None
        held = {id(plugin) for plugin in self.session.config.pluginmanager.get_plugins()}
        modules = dict(sys.modules)
        stale = tainted(changed, modules, self.graph.importers, self._project)
        if any(id(modules[name]) in held for name in stale):
            return None
        return stale

    def _select(
        self, session: pytest.Session, nodeids: Sequence[str], stale: set[str]
    ) -> list[pytest.Item] | None:
        """The items of nodeids, the stale test modules' collected again; None: not all found."""
        args = normalized([argument(nodeid) for nodeid in nodeids])
        items = chosen(self._files, args)
        if items is None:
            return None
        modules: dict[str, pytest.Module] = {}
        for item in items:
            module = item.getparent(pytest.Module)
            if module is None or type(module) is not pytest.Module:
                if stale:
                    return None  # a doctest, a plugin's own kind of item: not redone here
            elif module.obj.__name__ in stale:
                modules[os.path.realpath(module.path)] = module
        if not modules:
            return items
        files = dict(self._files)
        for path, module in modules.items():
            files[path] = _recollect(session, module)
        if self.collect_errors:
            return []  # as pytest does, nothing runs
        return chosen(files, args)


def _in_project(module: ModuleType, root: Path) -> bool:
    filename = getattr(module, "__file__", None)
    return bool(filename) and project_relpath(str(filename), root) is not None


def _session_hook(finder: object) -> bool:
    """Whether finder is one of this session's import hooks (its patches, its rewriting)."""
    return isinstance(finder, PatchFinder) or type(finder).__name__ == "AssertionRewritingHook"


def _recollect(session: pytest.Session, module: pytest.Module) -> list[pytest.Item]:
    """The items of a test module collected again (its module imported again), with the
    collection hooks a session runs on them."""
    parent = module.parent
    assert parent is not None
    nodes = parent.ihook.pytest_collect_file(file_path=module.path, parent=parent)
    fresh = [node for node in nodes if node.nodeid == module.nodeid]
    items = [item for node in fresh for item in session.genitems(node)]
    config = session.config
    config.hook.pytest_collection_modifyitems(session=session, config=config, items=items)
    return items


def _run_items(session: pytest.Session, items: list[pytest.Item], errors: int) -> pytest.ExitCode:
    """Run items as pytest's own run loop does (none after errors collecting them); the
    session's exit code."""
    session.items = items
    session.testscollected = len(items)
    session.testsfailed = errors
    session.shouldfail = session.shouldstop = False
    try:
        if errors:
            raise session.Interrupted(
                f"{errors} error{'s' if errors != 1 else ''} during collection"
            )
        for index, item in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=following)
            if session.shouldfail:
                return pytest.ExitCode.TESTS_FAILED
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)
    except (KeyboardInterrupt, pytest.exit.Exception):
        excinfo = pytest.ExceptionInfo.from_current()
        session.config.hook.pytest_keyboard_interrupt(excinfo=excinfo)
        return pytest.ExitCode.INTERRUPTED
    if session.testsfailed:
        return pytest.ExitCode.TESTS_FAILED
    return pytest.ExitCode.OK if items else pytest.ExitCode.NO_TESTS_COLLECTED
