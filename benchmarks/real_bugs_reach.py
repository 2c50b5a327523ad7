"""Which definitions the developer changed the failing tests reach (for real_bugs.py).

A fix often changes more than its failing tests run: the same mistake mended in a sibling
function no test of the bug calls (marshmallow's ``Dict._serialize`` beside ``List``'s). No
evidence of a failing run can point there, so recall is also given over the definitions the
failing tests reach at the fix: a function or method they call (a nested function counts for
the one holding it), a class whose methods they call or whose objects a method ran on. A module
constant is always counted as reached (no call shows its reading)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import real_bugs_lib as lib
import real_bugs_plugin as plugin
import real_projects_lib


def reached(project: lib.Project, gitdir: Path, bug: lib.Bug, timeout: float) -> list[str]:
    """The entries of bug.functions the failing tests reach at the fix."""
    python = lib.project_venv(project, Path("~/.cache/caretaker-bench").expanduser())
    with tempfile.TemporaryDirectory(prefix=f"{bug.id}-fixed-") as work:
        tree = Path(work, "fixed")
        lib.export(gitdir, bug.fix, tree)
        lib.prepare(project, gitdir, tree)
        calls = Path(work, "calls.json")
        env = lib.environment(project, tree, python, None)
        env |= {plugin.CALLS_ENV: str(calls), plugin.TESTS_ENV: "\n".join(bug.tests)}
        command = lib.pytest_argv(python, project, "-q", "-p", "no:caretaker")
        command += ["-p", "real_bugs_plugin", *sorted({t.split("::")[0] for t in bug.tests})]
        real_projects_lib.run(command, tree, env, timeout)
        try:
            seen = {(path, name) for path, name in json.loads(calls.read_text("utf-8"))}
        except (OSError, ValueError):
            return []
    return [entry for entry in bug.functions if _reaches(entry, seen)]


def _reaches(entry: str, seen: set[tuple[str, str]]) -> bool:
    path, qualname = entry.split("::", 1)
    names = {name for where, name in seen if where == path}
    if qualname in names:
        return True
    nested = qualname + ".<locals>."
    member = qualname + "."
    return any(n.startswith((nested, member)) for n in names) or qualname.isupper()
