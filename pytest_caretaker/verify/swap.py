"""The candidate's files served from memory, and the tracer: what every child that runs code
under a candidate needs (the pytest worker, caretaker run's and runtime healing's children).

A meta-path finder placed in front of every other finder (pytest's assertion rewriter,
setuptools' editable-install finders, the path finder) lets them locate a module as usual and,
when the module's file is one the candidate changes, swaps in a loader that compiles the patched
bytes instead, through pytest's own assertion rewriting for test modules. Standard library only
(pytest is imported to rewrite asserts, in a pytest session only): caretaker run's child runs in
any interpreter, with these modules copied beside it when that interpreter has no caretaker
(run/kit.py).
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.util
import linecache
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import CodeType, FrameType, ModuleType
from typing import TYPE_CHECKING, Any

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.verify.protocol import Trace

if TYPE_CHECKING:
    import pytest


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
            from pytest_caretaker.verify.pytest_private import rewrite_asserts

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
    def __init__(self, patches: dict[tuple[int, int], bytes], config: pytest.Config | None) -> None:
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
    sys.meta_path.insert(0, PatchFinder(patches, None))
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


#: The audit events of starting another program, whose code no trace of this process sees.
SPAWNS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork")
MAX_SPAWNED = 3  # commands kept per test
_spawned: list[list[str] | None] = [None]  # the running test's list, while a Tracer traces


def _on_audit(event: str, args: tuple[Any, ...]) -> None:
    into = _spawned[0]
    if into is None or event not in SPAWNS or len(into) >= MAX_SPAWNED:
        return
    try:  # an audit hook that raises stops the call it audits: never
        into.append(_command(event, args))
    except Exception:
        into.append(event)


def _command(event: str, args: tuple[Any, ...]) -> str:
    """The program an audit event starts, as a short command line."""
    if event == "os.fork":
        return "a fork of the test process"
    argv = args[{"os.system": 0, "os.spawn": 2}.get(event, 1)]
    if isinstance(argv, (str, bytes, os.PathLike)):
        argv = [argv]
    words = [os.fsdecode(w) if isinstance(w, (bytes, os.PathLike)) else str(w) for w in argv]
    if words and event != "os.system":
        words[0] = os.path.basename(words[0])
    return " ".join(words)[:120]


#: Line events traced of one test, then only the functions it calls; and calls traced, then
#: none. A trace costs ten times the test's time: a test that computes (more-itertools' Fourier
#: transform round trip, 6.6 s) took 67 s traced, past the baseline's limit, and nothing was
#: known of any test. Counts, not seconds, so that what is known never depends on the load.
MAX_LINES = 1_000_000
MAX_CALLS = 500_000


class Tracer:
    """Per test: which project functions ran (in first-call order), which lines, the project
    classes whose objects its methods ran on (``self``/``cls``: a base class's method reads a
    subclass's data), and the other programs it started (their code runs in another process:
    no trace here sees it). The
    threads the test starts are traced too: code under test that runs in a worker thread (a
    download pool, a progress bar's monitor) ran as much as code in the test's own."""

    _hooked = False  # an audit hook cannot be removed: one per process serves every Tracer

    def __init__(self, root: Path) -> None:
        self.root = root
        self.functions: dict[str, list[tuple[str, int]]] = {}
        self.lines: dict[str, dict[str, set[int]]] = {}
        self.spawned: dict[str, list[str]] = {}
        self.classes: dict[str, list[tuple[str, int, str, str]]] = {}
        self._files: dict[str, str | None] = {}
        if not Tracer._hooked:
            sys.addaudithook(_on_audit)
            Tracer._hooked = True

    def start(self, nodeid: str) -> None:
        _spawned[0] = self.spawned.setdefault(nodeid, [])
        functions = self.functions.setdefault(nodeid, [])
        seen = set(functions)
        lines = self.lines.setdefault(nodeid, {})
        on_class = self._on_class(self.classes.setdefault(nodeid, []))
        files = self._files
        root = self.root
        spent = [0, 0]  # the test's line events traced, and its calls

        def on_call(frame: FrameType, event: str, arg: Any) -> Any:
            spent[1] += 1
            if spent[1] > MAX_CALLS:
                sys.settrace(None)  # enough is known of this test: the rest runs at full speed
                return None
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
            if code.co_argcount and code.co_varnames[0] in ("self", "cls"):
                on_class(key, frame.f_locals.get(code.co_varnames[0]))
            if spent[0] > MAX_LINES:
                return None  # the functions it calls still count, line by line no more
            hits = lines.setdefault(rel, set())

            def on_line(frame: FrameType, event: str, arg: Any) -> Any:
                if event == "line":
                    spent[0] += 1
                    hits.add(frame.f_lineno)
                return on_line if spent[0] <= MAX_LINES else None

            return on_line

        threading.settrace(on_call)
        sys.settrace(on_call)

    def _on_class(self, found: list[tuple[str, int, str, str]]) -> Any:
        """What records, per function, each project class it ran on (once per pair)."""
        seen: set[tuple[tuple[str, int], type]] = set()
        files, root = self._files, self.root

        def on_class(key: tuple[str, int], obj: object) -> None:
            cls = obj if isinstance(obj, type) else type(obj)
            if (key, cls) in seen:
                return
            seen.add((key, cls))
            module = sys.modules.get(cls.__module__)
            filename = getattr(module, "__file__", None)
            if not isinstance(filename, str) or "<" in cls.__qualname__:
                return
            rel = files.get(filename, "")
            if rel == "":
                rel = files[filename] = project_relpath(filename, root)
            if rel is not None:
                found.append((key[0], key[1], rel, cls.__qualname__))

        return on_class

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)
        _spawned[0] = None

    def as_json(self) -> Trace:
        return {
            "functions": self.functions,
            "lines": {
                nodeid: {rel: sorted(hits) for rel, hits in files.items()}
                for nodeid, files in self.lines.items()
            },
            "spawned": {nodeid: found for nodeid, found in self.spawned.items() if found},
            "classes": {nodeid: found for nodeid, found in self.classes.items() if found},
        }
