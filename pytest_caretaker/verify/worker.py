"""The child side of verification: run pytest with candidate sources served from memory.

Started by runner.py as ``python -m pytest_caretaker.verify.worker SPEC.json``, or forked per
run by the warm server (warm.py). The user's files
are never written: a meta-path finder placed in front of every other finder (pytest's assertion
rewriter, setuptools' editable-install finders, the path finder) lets them locate a module as usual
and, when the module's file is one the candidate changes, swaps in a loader that compiles the
patched bytes instead — through pytest's own assertion rewriting for test modules. Bytecode writing
is off, so no cached .pyc of a candidate can outlive the run. Each test has its own time limit
(timer.py): one that hangs fails, with the lines it ran, and the run goes on. Results go to a JSON
file beside the spec, opened before the run is confined and written last (protocol.py types
both). Like trial_server.py, it imports nothing of the parent's side: the standard library,
pytest, and the small modules both sides share.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.util
import json
import linecache
import os
import sys
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path
from types import CodeType, FrameType, ModuleType
from typing import Any, Literal, cast

import pytest

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.verify import sandbox
from pytest_caretaker.verify.channel import MEMORY_HEADROOM, cap_memory
from pytest_caretaker.verify.protocol import (
    ReportedOutcome,
    RunReport,
    RunSpec,
    Trace,
)
from pytest_caretaker.verify.pytest_private import rewrite_asserts
from pytest_caretaker.verify.timer import Limits, TimeLimits
from pytest_caretaker.verify.verdict import open_result, report_to, run_space

MAX_DETAIL = 3_000


class PatchedLoader(importlib.abc.Loader):
    def __init__(self, origin: str, source: bytes, config: pytest.Config | None) -> None:
        self.origin = origin
        self.source = source
        self.config = config  # set when pytest would have rewritten this module's asserts

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def get_source(self, fullname: str) -> str:
        return importlib.util.decode_source(self.source)

    def exec_module(self, module: ModuleType) -> None:
        code: CodeType
        if self.config is not None:
            tree = ast.parse(self.source, filename=self.origin)
            rewrite_asserts(tree, self.source, self.origin, self.config)
            code = compile(tree, self.origin, "exec", dont_inherit=True)
        else:
            code = compile(self.source, self.origin, "exec", dont_inherit=True)
        # Tracebacks and pytest's reports show the source that ran, not the file on disk.
        text = self.get_source(module.__name__)
        linecache.cache[self.origin] = (len(text), None, text.splitlines(True), self.origin)
        exec(code, module.__dict__)


def file_id(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


class PatchFinder(importlib.abc.MetaPathFinder):
    def __init__(self, patches: dict[tuple[int, int], bytes], config: pytest.Config) -> None:
        # Keyed by the original file's (device, inode): a module found through a symlink or a
        # hard link (editable installs may build link trees) is still the same file.
        self.patches = patches
        self.config = config

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        spec: importlib.machinery.ModuleSpec | None = None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if isinstance(finder, PatchFinder) or find is None:  # another: a nested session's
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        if spec is None or not spec.origin:
            return spec
        key = file_id(spec.origin)
        source = self.patches.get(key) if key is not None else None
        if source is not None:
            rewrites = type(spec.loader).__name__ == "AssertionRewritingHook"
            spec.loader = PatchedLoader(spec.origin, source, self.config if rewrites else None)
        return spec


def serve(patched: Mapping[str, str]) -> dict[tuple[int, int], bytes]:
    """In a child that runs a candidate outside a pytest session (caretaker run's command,
    runtime healing's replayed call): serve the candidate's files (original path -> the file
    holding its new bytes) in memory, in front of every other finder. No test module is run
    there, so no assertion rewriting: the config is never read. The patches, by file id."""
    patches: dict[tuple[int, int], bytes] = {}
    for original, new in patched.items():
        key = file_id(original)
        if key is not None:
            patches[key] = Path(new).read_bytes()
    sys.meta_path.insert(0, PatchFinder(patches, cast(pytest.Config, None)))
    return patches


def script_code(path: str, patches: Mapping[tuple[int, int], bytes]) -> CodeType:
    """The code of a script run as ``__main__`` (which no import finder sees): the candidate's
    source when it changes that file, shown by tracebacks too, else the file's."""
    key = file_id(path)
    source = patches.get(key) if key is not None else None
    if source is None:
        source = Path(path).read_bytes()
    else:
        text = importlib.util.decode_source(source)
        linecache.cache[path] = (len(text), None, text.splitlines(True), path)
    return compile(source, path, "exec", dont_inherit=True)


class Tracer:
    """Per test: which project functions ran (in first-call order) and which lines."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.functions: dict[str, list[tuple[str, int]]] = {}
        self.lines: dict[str, dict[str, set[int]]] = {}
        self._files: dict[str, str | None] = {}

    def start(self, nodeid: str) -> None:
        functions = self.functions.setdefault(nodeid, [])
        seen = set(functions)
        lines = self.lines.setdefault(nodeid, {})
        files = self._files
        root = self.root

        def on_call(frame: FrameType, event: str, arg: Any) -> Any:
            code = frame.f_code
            filename = code.co_filename
            rel = files.get(filename, "")
            if rel == "":
                rel = files[filename] = project_relpath(filename, root)
            if rel is None:
                return None
            key = (rel, code.co_firstlineno)
            if key not in seen:
                seen.add(key)
                functions.append(key)
            hits = lines.setdefault(rel, set())

            def on_line(frame: FrameType, event: str, arg: Any) -> Any:
                if event == "line":
                    hits.add(frame.f_lineno)
                return on_line

            return on_line

        sys.settrace(on_call)

    def stop(self) -> None:
        sys.settrace(None)

    def as_json(self) -> Trace:
        return {
            "functions": self.functions,
            "lines": {
                nodeid: {rel: sorted(hits) for rel, hits in files.items()}
                for nodeid, files in self.lines.items()
            },
        }


class WorkerPlugin:
    def __init__(
        self, root: Path, patches: dict[tuple[int, int], bytes], trace: bool, limits: Limits
    ) -> None:
        self.patches = patches
        self.tracer = Tracer(root) if trace else None
        #: Each test's time limit: a plugin of its own, registered with this one (plugins()).
        self.time_limits = TimeLimits(limits)
        self.outcomes: dict[str, ReportedOutcome] = {}
        self.collect_errors: list[str] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config: pytest.Config) -> None:
        # pytest has installed its assertion rewriter by now; go in front of it.
        sys.meta_path.insert(0, PatchFinder(self.patches, early_config))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        if self.tracer is None:
            return (yield)
        self.tracer.start(item.nodeid)
        try:
            return (yield)
        finally:
            self.tracer.stop()

    # Fixtures are code under test too: trace setup and call alike.
    pytest_runtest_call = pytest_runtest_setup

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        seen = self.outcomes.get(report.nodeid)
        if report.failed:
            outcome: Literal["failed", "error"] = "failed" if report.when == "call" else "error"
            if seen is None or seen["outcome"] == "passed":
                detail = report.longreprtext[-MAX_DETAIL:]
                self.outcomes[report.nodeid] = {"outcome": outcome, "detail": detail}
        elif report.skipped and seen is None:
            self.outcomes[report.nodeid] = {"outcome": "skipped", "detail": ""}
        elif report.when == "call" and report.passed and seen is None:
            self.outcomes[report.nodeid] = {"outcome": "passed", "detail": ""}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(report.longreprtext[-MAX_DETAIL:])

    def plugins(self) -> list[object]:
        """What pytest.main is given to run a session of this plugin's."""
        return [self, self.time_limits]

    def result(self, exit_code: int) -> RunReport:
        return {
            "exit_code": exit_code,
            "outcomes": self.outcomes,
            "collect_errors": self.collect_errors,
            "trace": self.tracer.as_json() if self.tracer is not None else None,
        }


def run_spec(spec_path: str) -> RunReport:
    spec: RunSpec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    sys.dont_write_bytecode = True
    cap_memory()
    limits = Limits(spec["test_limit"], spec["run_limit"])
    plugin = WorkerPlugin(
        Path(spec["root"]).resolve(), load_patches(spec), bool(spec["trace"]), limits
    )
    exit_code = int(pytest.main([*spec["args"], *spec["nodeids"]], plugins=plugin.plugins()))
    return plugin.result(exit_code)


def load_patches(spec: RunSpec) -> dict[tuple[int, int], bytes]:
    """The spec's candidate bytes by the (device, inode) of the file each replaces."""
    patches: dict[tuple[int, int], bytes] = {}
    for original, patched in spec["patches"].items():
        key = file_id(original)
        if key is not None:
            patches[key] = Path(patched).read_bytes()
    return patches


def main(argv: Sequence[str]) -> int:
    spec: RunSpec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    rules = spec.get("sandbox")
    result = open_result(argv[0])
    if rules is not None:  # one fresh run: this process waits, its child runs confined
        sandbox.enter(rules)
        sandbox.confine_run(rules, run_space(argv[0]), MEMORY_HEADROOM)
    report_to(result, run_spec(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
