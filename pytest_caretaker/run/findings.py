"""What a failing command reports, as findings: the engine's Failures, each with a key.

A Python crash is one finding (its exception where it was raised). Any command's output may also
name project files as ``path:line[:col]: text`` (a type checker, a linter, a smoke script): each
such line that names a Python file of the project is a finding whose one frame is that line, so
localization starts at the function holding it.

Keys compare findings across runs: the file and the text without the line number (a fix above
a finding moves it), or for a crash the exception's type and the function that raised it (its
message may hold values that differ from run to run). A fix of one finding must make its key
disappear without bringing a new one (``new``), unless it is a crash that moved on further
(``moved_on``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path

from pytest_caretaker.project.files import ProjectFiles, project_relpath
from pytest_caretaker.record.failure import MAX_OUTPUT
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import Failure, Frame
from pytest_caretaker.run import crash

#: ``pkg/mod.py:12: error: …``, ``pkg/mod.py:12:5: F821 …``; not a traceback's ``File "…", line``.
_REFERENCE = re.compile(
    r"""^\s*(?P<path>[^\s:"'(),]+\.py):(?P<line>\d+)(?::(?P<col>\d+))?:?(?P<text>.*)$"""
)
#: Lines of a finding's report kept after its own line (a checker's notes and context).
_CONTEXT = 4
#: A crash's key names this as its file when none of the project's frames shows where it was.
CRASH = "crash"
MAX_FINDINGS = 50
#: The end of a path:line finding's exc_type (``mypy pkg reports``).
REPORTS = " reports"

Key = tuple[str, str]


def reported(failure: Failure) -> bool:
    """Whether failure is a ``path:line`` the command printed (not a crash)."""
    return failure.exc_type.endswith(REPORTS)


def key(failure: Failure) -> Key:
    """What identifies failure across runs of the command."""
    if reported(failure):
        frame = failure.innermost
        path = frame.path if frame is not None else ""
        return path, failure.message.partition(": ")[2]
    innermost = failure.innermost
    where = innermost.name if innermost is not None else "?"
    return (innermost.path if innermost is not None else CRASH), f"{failure.exc_type} in {where}"


def keys(failures: Sequence[Failure]) -> Counter[Key]:
    return Counter(key(failure) for failure in failures)


def new(before: Counter[Key], after: Counter[Key]) -> list[Key]:
    """The keys after reports more often than before did: what a change brought."""
    return [found for found, count in after.items() if count > before.get(found, 0)]


def moved_on(crashed: Failure, brought: Sequence[Failure], seen: Collection[Key] = ()) -> bool:
    """Whether a fix of crashed that brings these findings lets the program get further: each
    is a crash raised in a function that was not on crashed's stack, and not one seen before in this
    run (which an earlier fix removed: undoing it is no progress). A fix that makes a function
    return garbage its caller then trips over moves the crash into a caller, which was on the
    stack: refused. (A script's next bug is then the next iteration's finding.)"""
    if reported(crashed) or not brought:
        return False
    stack = {(frame.path, frame.name) for frame in crashed.frames}
    for found in brought:
        inner = found.innermost
        if reported(found) or inner is None or (inner.path, inner.name) in stack:
            return False
        if key(found) in seen:
            return False
    return True


def reported_in(
    output: str, root: Path, name: str, files: ProjectFiles, redactor: Redactor
) -> list[Failure]:
    """What a run's output reports: its last Python traceback, then its path:line lines."""
    found: list[Failure] = []
    failure = crash.parsed(output, root, name, "", redactor)
    if failure is not None and failure.frames:
        found.append(failure)
    return found + references(output, root, name, files, redactor)


def references(
    output: str, root: Path, name: str, files: ProjectFiles, redactor: Redactor
) -> list[Failure]:
    """Each ``path:line`` line of output that names a Python file of the project at root."""
    lines = output.splitlines()
    found: list[Failure] = []
    seen: set[tuple[str, int, str]] = set()
    for index, line in enumerate(lines):
        match = _REFERENCE.match(line)
        if match is None:
            continue
        rel = project_relpath(match["path"], root)
        if rel is None or files.get(rel) is None:
            continue
        number, text = int(match["line"]), match["text"].strip()
        if (rel, number, text) in seen:
            continue
        seen.add((rel, number, text))
        context = [line]
        for after in lines[index + 1 : index + 1 + _CONTEXT]:
            if _REFERENCE.match(after) or not after.strip():
                break
            context.append(after)
        found.append(_finding(rel, number, text, "\n".join(context), name, files, output, redactor))
        if len(found) >= MAX_FINDINGS:
            break
    return found


def _finding(
    rel: str,
    line: int,
    text: str,
    report: str,
    name: str,
    files: ProjectFiles,
    output: str,
    redactor: Redactor,
) -> Failure:
    source = files.get(rel)
    definition = source.enclosing(line) if source is not None else None
    function = "<module>"  # as a traceback names code that is not in a function
    if definition is not None and definition.kind == "function":
        function = definition.qualname.rpartition(".")[2]
    said = f"{rel}:{line}: {text}"
    return Failure(
        nodeid=said if len(said) <= 100 else said[:99] + "…",
        when="call",
        path="",
        exc_type=f"{name}{REPORTS}",
        message=redactor(said),
        longrepr=redactor(report),
        frames=(Frame(rel, line, function),),
        output=redactor(output[-MAX_OUTPUT:]),
        subject=f"The command `{name}` reports a problem in the project's code: `{said}`.",
    )


def unique(failures: Sequence[Failure], taken: set[str]) -> list[Failure]:
    """failures with node ids no earlier finding of the run had (a second crash of the same
    command gets "(2)"), each id then taken."""
    named: list[Failure] = []
    for failure in failures:
        nodeid, count = failure.nodeid, 1
        while nodeid in taken:
            count += 1
            nodeid = f"{failure.nodeid} ({count})"
        taken.add(nodeid)
        named.append(failure if nodeid == failure.nodeid else replace(failure, nodeid=nodeid))
    return named
