"""Localize: rank the functions that may hold the bug.

An assertion failure's traceback ends in the test, while the bug is usually in code the test called.
So the ranking uses two pieces of evidence: the traceback (innermost project frame first) and what
the failing test executed in a traced rerun, what the failing test calls by name first (the function
under test, calls.py), then the data the failing tests' names name and their classes' methods that
ran (naming.py), then ordered by the Ochiai spectrum score against the passing tests of the same
module (code that passing tests also run is less suspicious). A copy of a best suspect's code
follows it (clones.py). What no trace shows follows the ranked functions with the score of the
function that points to it (related.py): the data of the classes their methods ran on, and the
constants they read. A call its callee refused (a TypeError: ``Version.__init__() missing 1 required
positional argument``) ran none of the callee, so it follows the traceback by the name the error
gives.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_caretaker.project import calls as test_calls
from pytest_caretaker.project import clones, naming, related
from pytest_caretaker.project.files import Definition, ProjectFiles, SourceFile, TestFiles
from pytest_caretaker.project.imports import imported
from pytest_caretaker.results import Executed, Failure


@dataclass(frozen=True)
class Suspect:
    path: str
    qualname: str
    is_test: bool
    score: float
    failed_lines: tuple[int, ...] = ()  # lines of this function in the failing traceback

    @property
    def ref(self) -> str:
        return f"{self.path}::{self.qualname}"


def ochiai(failed: int, passed: int, total_failed: int) -> float:
    if failed == 0 or total_failed == 0:
        return 0.0
    return failed / math.sqrt(total_failed * (failed + passed))


def line_scores(
    failing: Sequence[str], passing: Sequence[str], executed: Mapping[str, Executed]
) -> dict[tuple[str, int], float]:
    """The Ochiai score of every (path, line) the failing tests executed."""

    def counts(nodeids: Sequence[str]) -> dict[tuple[str, int], int]:
        found: dict[tuple[str, int], int] = {}
        for nodeid in nodeids:
            run = executed.get(nodeid)
            for path, lines in run.lines.items() if run is not None else ():
                for line in lines:
                    found[(path, line)] = found.get((path, line), 0) + 1
        return found

    failed = counts(failing)
    passed = counts(passing)
    total_failed = sum(1 for nodeid in failing if nodeid in executed)
    return {key: ochiai(hits, passed.get(key, 0), total_failed) for key, hits in failed.items()}


def localize(
    failure: Failure,
    failing: Sequence[str],
    executed: Mapping[str, Executed],
    passing: Sequence[str],
    sources: ProjectFiles,
    tests: TestFiles,
    names: bool = True,
) -> tuple[Suspect, ...]:
    """Rank functions: traceback frames innermost first, then executed code by suspiciousness.

    failing are the node ids that fail together (one root cause); passing the tests that serve as
    the spectrum's passing side; names, whether the tests' names count (naming.py): not when
    telling whether failures share a root cause, since tests of one bug are named apart.
    """
    failed_lines = _traceback(failure, sources)
    order = list(failed_lines) + _refused_call(failure, sources)
    ranked, score = _spectrum(failing, passing, executed, sources)
    # What the failing test itself calls by name comes first: most often the function under
    # test, which the spectrum cannot tell from its helpers when every test runs them all.
    called, stored = test_calls.called_by(failed_lines, sources, tests)
    calls = [key for key in ranked if test_calls.named(key[1], called | stored)]
    calls = test_calls.callees(calls, ranked, sources)
    # Then what the failing tests' names name (naming.py), then the spectrum's order.
    by_name = naming.named(failing, ranked, executed, sources, tests) if names else []
    ranked = test_calls.members(ranked, stored, sources) + calls + by_name + ranked
    # A message quoting a function's literal names it, above what the spectrum favours.
    message = f"{failure.message}\n{failure.longrepr}"
    for key in related.quoted(message, ranked, sources, tests) + ranked:
        if key not in order:
            order.append(key)
    scores = {key: score(key) for key in order}
    # A copy of a best suspect's code follows it: a fix of one is often a fix of both.
    for key, copied in reversed(clones.clones(order, sources, tests)):
        order.insert(order.index(copied) + 1, key)
        scores[key] = scores[copied]
    found = related.classes(order, failing, executed, sources, tests)
    found += related.constants(order, sources, tests, frozenset(failed_lines))
    for key, reader in found:
        if key not in scores:
            order.append(key)
            scores[key] = scores[reader]
    return tuple(
        Suspect(
            path=path,
            qualname=qualname,
            is_test=path in tests,
            score=scores[(path, qualname)],
            failed_lines=tuple(sorted(set(failed_lines.get((path, qualname), ())))),
        )
        for path, qualname in order
    )


def _spectrum(
    failing: Sequence[str],
    passing: Sequence[str],
    executed: Mapping[str, Executed],
    sources: ProjectFiles,
) -> tuple[list[tuple[str, str]], Callable[[tuple[str, str]], float]]:
    """The functions the failing tests ran, by their Ochiai score (ties: in the order they first
    ran), and the score."""
    hits_failed = _function_hits(failing, executed, sources)
    hits_passed = _function_hits(passing, executed, sources)
    first_seen: dict[tuple[str, str], int] = {}
    for nodeid in failing:
        for key in _functions_of(executed.get(nodeid), sources):
            first_seen.setdefault(key, len(first_seen))
    total_failed = sum(1 for nodeid in failing if nodeid in executed)

    def score(key: tuple[str, str]) -> float:
        return ochiai(hits_failed.get(key, 0), hits_passed.get(key, 0), total_failed)

    return sorted(first_seen, key=lambda key: (-score(key), first_seen[key])), score


def _traceback(failure: Failure, sources: ProjectFiles) -> dict[tuple[str, str], list[int]]:
    """The definitions of the traceback's frames, innermost first, with their failing lines."""
    failed_lines: dict[tuple[str, str], list[int]] = {}
    for frame in reversed(failure.frames):
        source = sources.get(frame.path)
        definition = _outermost(source, frame.lineno) if source is not None else None
        if definition is not None:
            failed_lines.setdefault((frame.path, definition.qualname), []).append(frame.lineno)
    return failed_lines


def _functions_of(executed: Executed | None, sources: ProjectFiles) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if executed is None:
        return found
    for path, first_line in executed.functions:
        source = sources.get(path)
        definition = _outermost(source, first_line) if source is not None else None
        # A module's own code starts on line 1 too: only what can be called counts.
        if definition is None or not definition.runs:
            continue
        if (path, definition.qualname) not in found:
            found.append((path, definition.qualname))
    return found


def _outermost(source: SourceFile, lineno: int) -> Definition | None:
    """The definition holding lineno, a nested function's outermost enclosing function: a
    decorator's ``wrapper`` or a closure is shown, and fixed, with the function that makes it
    (semver's ``comparator``)."""
    definition = source.enclosing(lineno)
    while definition is not None and definition.kind == "function" and not definition.method:
        parent = source.find(definition.qualname.rpartition(".")[0], "function")
        if parent is None or not parent.start <= definition.start <= parent.end:
            break
        definition = parent
    return definition


def _function_hits(
    nodeids: Sequence[str], executed: Mapping[str, Executed], sources: ProjectFiles
) -> dict[tuple[str, str], int]:
    hits: dict[tuple[str, str], int] = {}
    for nodeid in nodeids:
        for key in _functions_of(executed.get(nodeid), sources):
            hits[key] = hits.get(key, 0) + 1
    return hits


#: A call the callee refused before its first line ran: ``Version.__init__() missing 2 required
#: positional arguments``, ``f() takes 1 positional argument but 2 were given``, ``got an
#: unexpected keyword argument``: the callee's signature may be what is wrong.
_REFUSED_CALL = re.compile(r"^([A-Za-z_][\w.]*)\(\) (?:missing|takes|got)")


def _refused_call(failure: Failure, sources: ProjectFiles) -> list[tuple[str, str]]:
    """The definitions a TypeError says refused their call, in the project files the failing
    frame's file imports (no frame of theirs ran, so neither traceback nor trace shows them)."""
    found = _REFUSED_CALL.match(failure.message) if failure.exc_type == "TypeError" else None
    frame = failure.innermost
    if found is None or frame is None:
        return []
    name = found.group(1)
    places: list[tuple[str, str]] = []
    for rel in sorted(imported(frame.path, sources.get)):
        source = sources.get(rel)
        for definition in source.definitions if source is not None else ():
            qualname = definition.qualname
            if definition.runs and (qualname == name or qualname.endswith("." + name)):
                places.append((rel, qualname))
    return places[:3]
