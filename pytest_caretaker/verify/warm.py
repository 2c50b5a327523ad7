"""The warm worker server: import pytest and its plugins once, then fork one run per request.

Started by runner.py as ``python -m pytest_caretaker.verify.warm ROOT [POLICY]``. Each spec path
read from stdin is run by worker.py's run_spec in a forked child, so a run costs about what its
tests cost. With a sandbox POLICY (JSON) the server is pid 1 of its own namespaces and each run is
confined further (sandbox.py). Like worker.py it imports nothing of the parent's side.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.verify import sandbox
from pytest_caretaker.verify.channel import MEMORY_HEADROOM, fork
from pytest_caretaker.verify.protocol import SandboxPolicy
from pytest_caretaker.verify.worker import run_spec


def preload(root: Path) -> None:
    """Import pytest's plugins and their packages once, so that each forked run starts warm.

    Whole packages, not just the entry modules: a plugin may import its package lazily during
    the run (hypothesis does, in pytest_terminal_summary), and pytest would then rewrite and
    compile it from source in every run. Modules of the project itself are dropped again: a
    run must import them fresh, patched.
    """
    from importlib.metadata import entry_points

    names: set[str] = set()
    for entry in entry_points(group="pytest11"):
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
    for name, module in list(sys.modules.items()):
        filename = getattr(module, "__file__", None)
        if filename and project_relpath(filename, root) is not None:
            del sys.modules[name]


def serve(root: str, rules: SandboxPolicy | None = None) -> int:
    """Fork one child per spec path read from stdin; report "<pid>" then "done <status>".

    The child starts its own session (so a timeout can kill its whole process group) and
    writes its output next to the spec. Sandboxed, this server is pid 1 of its own namespaces
    (its pids mean nothing outside), and it kills what each run leaves behind.
    """
    sys.dont_write_bytecode = True
    if rules is not None:
        sandbox.confine_server(rules)
    preload(Path(root).resolve())
    out = sys.stdout
    for line in sys.stdin:
        spec_path = line.strip()
        if not spec_path:
            continue
        output = Path(spec_path).with_name("output.txt")
        pid = fork(partial(_run_logged, spec_path, output, rules))
        out.write(f"{pid}\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        sandbox.reap()
        out.write(f"done {status}\n")
        out.flush()
    return 0


def _run_logged(spec_path: str, output: Path, rules: SandboxPolicy | None) -> None:
    """run_spec with this process's stdout and stderr (and so the run's own) going to output."""
    fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        if rules is not None:
            sandbox.confine_run(rules, str(output.parent), MEMORY_HEADROOM)
        run_spec(spec_path)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def main(argv: Sequence[str]) -> int:
    return serve(argv[0], json.loads(argv[1]) if len(argv) > 1 else None)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
