"""The warm worker server: import pytest and its plugins once, then fork one run per request.

Started by runner.py as ``python -m pytest_caretaker.verify.warm ROOT [POLICY [SESSION]]``. With a
SESSION (JSON: pytest's arguments and the test files to collect; no files: nothing to collect, the
arguments only tell which plugins the runs load) the server configures pytest and
collects those files once, and each spec path read from stdin is run in a forked child from the
collected session (collected.py), so a run costs what its tests cost; without one, each child runs
worker.py's run_spec, a whole pytest session. With a sandbox POLICY (JSON, or null) the server is
pid 1 of its own namespaces and each run is confined further (sandbox.py). Like worker.py it
imports nothing of the parent's side.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import IO

import pytest

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.verify import sandbox
from pytest_caretaker.verify.arguments import blocked_plugins
from pytest_caretaker.verify.channel import MEMORY_HEADROOM, fork, learn_module_files
from pytest_caretaker.verify.protocol import RunReport, SandboxPolicy, Session
from pytest_caretaker.verify.verdict import open_result, report_to, run_space
from pytest_caretaker.verify.worker import run_spec


def preload(root: Path, blocked: frozenset[str] = frozenset()) -> None:
    """Import pytest's plugins and their packages once, so that each forked run starts warm.

    Whole packages, not just the entry modules: a plugin may import its package lazily during
    the run (hypothesis does, in pytest_terminal_summary), and pytest would then rewrite and
    compile it from source in every run. Not the plugins the runs will not load: blocked by
    name (-p no:NAME), or all of them with PYTEST_DISABLE_PLUGIN_AUTOLOAD (a plugin named with
    -p then is imported by the run). Modules of the project itself are dropped again: a run
    must import them fresh, patched.
    """
    from importlib.metadata import entry_points

    names: set[str] = set()
    autoload = not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    for entry in entry_points(group="pytest11") if autoload else ():
        if entry.name in blocked:
            continue
        names.add(entry.module)
        for file in (entry.dist.files or []) if entry.dist is not None else []:
            top = file.parts[0].removesuffix(".py")
            if file.suffix == ".py" and top.isidentifier():
                names.add(top)
    for name in sorted(names):
        try:
            importlib.import_module(name)
        except BaseException:
            continue  # a plugin that fails to import is reported by pytest in the run itself
    with contextlib.suppress(ImportError):
        import resource  # noqa: F401 - each run caps its memory with it: load it once, here
    for name, module in list(sys.modules.items()):
        filename = getattr(module, "__file__", None)
        if filename and project_relpath(filename, root) is not None:
            del sys.modules[name]
    learn_module_files()


def serve(root: str, rules: SandboxPolicy | None = None, session: Session | None = None) -> int:
    """Fork one child per spec path read from stdin; report "<pid>" then "done <status>".

    The child starts its own session (so a timeout can kill its whole process group) and
    writes its output next to the spec. Sandboxed, this server is pid 1 of its own namespaces
    (its pids mean nothing outside), and it kills what each run leaves behind.
    """
    sys.dont_write_bytecode = True
    if rules is not None:
        sandbox.confine_server(rules)
    preload(Path(root).resolve(), blocked_plugins(session["args"]) if session else frozenset())
    # The protocol keeps the real stdin and stdout; the server's own pytest output goes nowhere.
    commands = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    serving = partial(_serve_one, replies, rules, (commands, replies))
    if session is not None and session["paths"]:
        from pytest_caretaker.verify.collected import CollectedSession

        plugin = CollectedSession(Path(root).resolve(), commands, serving, partial(_ready, replies))
        try:
            pytest.main([*session["args"], *session["paths"]], plugins=plugin.plugins())
        finally:
            plugin.graph.uninstall()
        if plugin.served:
            return 0
    _ready(replies)
    for line in commands:  # no collected session: each run is a whole one
        if line.strip():
            serving(run_spec, line.strip())
    return 0


def _ready(replies: IO[str]) -> None:
    """Tell the parent that runs are served now (its first line)."""
    replies.write("ready\n")
    replies.flush()


def _serve_one(
    replies: IO[str],
    rules: SandboxPolicy | None,
    protocol: tuple[IO[str], IO[str]],
    run: Callable[[str], RunReport],
    spec_path: str,
) -> int:
    """Run one spec in a forked child; tell the parent its pid, then its wait status."""
    output = Path(spec_path).with_name("output.txt")
    pid = fork(partial(_run_logged, run, spec_path, output, rules, protocol))
    replies.write(f"{pid}\n")
    replies.flush()
    _, status = os.waitpid(pid, 0)
    sandbox.reap()
    replies.write(f"done {status}\n")
    replies.flush()
    return status


def _run_logged(
    run: Callable[[str], RunReport],
    spec_path: str,
    output: Path,
    rules: SandboxPolicy | None,
    protocol: tuple[IO[str], IO[str]],
) -> None:
    """run with this process's stdout and stderr (and so the run's own) going to output; its
    report to the result file, opened (like output) before the run is confined."""
    for stream in protocol:  # a run must not read the next request nor answer for the server
        os.close(stream.fileno())
    fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    result = open_result(spec_path)
    try:
        if rules is not None:
            sandbox.confine_run(rules, run_space(spec_path), MEMORY_HEADROOM)
        report_to(result, run(spec_path))
    except BaseException:
        with output.open("a", encoding="utf-8") as file:  # why the run did not report
            traceback.print_exc(file=file)
        raise
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def main(argv: Sequence[str]) -> int:
    rules = json.loads(argv[1]) if len(argv) > 1 else None
    return serve(argv[0], rules, json.loads(argv[2]) if len(argv) > 2 else None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
