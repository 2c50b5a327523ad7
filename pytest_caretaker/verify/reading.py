"""Reading what a verification run wrote: whether its result can be read, and its trace."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_caretaker.results import Executed
from pytest_caretaker.verify.protocol import Trace

#: Bytes of a run's result the parent reads; a larger one is a failed run.
MAX_RESULT = 64 << 20


def unreadable(result_file: Path) -> str | None:
    """Why a run's result cannot be read, or None."""
    try:
        size = result_file.stat().st_size
    except OSError:
        size = 0
    if size == 0:  # opened before the run, written as its last act
        return "the test process exited before reporting (did the code exit the interpreter?)"
    if size > MAX_RESULT:
        return f"the test process wrote a result of {size} bytes, more than {MAX_RESULT}"
    return None


def executed(trace: Trace | None) -> dict[str, Executed]:
    if not trace:
        return {}
    lines, spawned, classes = trace["lines"], trace.get("spawned", {}), trace.get("classes", {})
    return {
        nodeid: Executed(
            functions=tuple((str(path), int(first)) for path, first in calls),
            lines={rel: frozenset(hits) for rel, hits in lines.get(nodeid, {}).items()},
            spawned=tuple(str(command) for command in spawned.get(nodeid, ())),
            classes=tuple(
                ((str(path), int(first)), (str(rel), str(name)))
                for path, first, rel, name in classes.get(nodeid, ())
            ),
        )
        for nodeid, calls in trace["functions"].items()
    }


def executed_in(trace_file: Path, case: str) -> Executed | None:
    """What one case ran, from a trace file a child wrote (caretaker run's command, runtime
    healing's replayed call); None when there is none to read."""
    try:
        trace = json.loads(trace_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return executed(trace).get(case)
