"""Partial reverts: put back what one hunk, or a few hunks together, of the change since the
failing test last passed replaced, within one suspect function.

The change is the diff from the last green commit to the working tree (``Task.changes``), each
hunk with the commit that made it. For each suspect function outside the tests that the change
touched (best-ranked first), this makes a Mutant of each hunk inside it (those on lines the
failing test ran first), then of each pair, then of every hunk at once (when few): a text edit
of the file like any other, proved the same way. Its description names the lines, the file and
the commits, so the explanation says what is undone, and ``Mutant.reverts`` carries the commits
to the commit trailer. A hunk in a test file is never reverted: ``refusals`` says why, in the
guard's words (``Editable.refusal``), as for every edit of a test.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import REVERT
from pytest_caretaker.builtin.mutate import outermost
from pytest_caretaker.changes.diff import Hunk
from pytest_caretaker.changes.lineage import Changes
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.problem import Failed, Healed, Task
from pytest_caretaker.project.files import Definition, ProjectFiles, SourceFile
from pytest_caretaker.results import Edit

OPERATOR = REVERT
#: Hunks of one function reverted all at once only up to this many (pairs always).
MAX_ALL = 6
#: Revert candidates of one problem, at most.
MAX_CANDIDATES = 40


def candidates(task: Task, files: ProjectFiles, editable: Editable) -> list[Mutant]:
    """The partial reverts for the task's problem, best first; none without a change."""
    changes = task.changes
    if changes is None:
        return []
    ran = task.executed.get(task.problem.lead.nodeid)
    lines = ran.lines if ran is not None else {}
    found: list[Mutant] = []
    seen: set[tuple[str, str]] = set()
    for suspect in task.suspects:
        source = files.get(suspect.path)
        if source is None or suspect.path in editable.tests or not editable.path(suspect.path):
            continue
        for definition in outermost(source):
            key = (suspect.path, definition.qualname)
            if key in seen or not _holds(definition, suspect.qualname):
                continue
            seen.add(key)
            hunks = _inside(changes, source, definition)
            hunks.sort(key=lambda h: not any(h.touches(n, n) for n in lines.get(h.path, ())))
            found += _reverts(source, definition, hunks)
    return found[:MAX_CANDIDATES]


def first(
    task: Task, ranked: list[Mutant], files: ProjectFiles, editable: Editable
) -> list[Mutant]:
    """The partial reverts, then the other candidates: the change since the test last passed
    is the strongest evidence there is, and a revert that holds is the code the tests last
    agreed with (a one-token edit of the same line is the same text, tried once)."""
    found = candidates(task, files, editable)
    if not found:
        return ranked
    task.log.add(
        "Partial reverts",
        f"The change since {task.changes.green.short if task.changes else ''} touches the "
        "suspects; tried first:\n" + "\n".join(f"- {m.description}" for m in found),
    )
    same = {(m.path, m.start, m.end, m.replacement) for m in found}
    return found + [m for m in ranked if (m.path, m.start, m.end, m.replacement) not in same]


def noted(outcome: Healed | Failed, task: Task, editable: Editable) -> Healed | Failed:
    """The outcome, saying which reverts of tests were refused."""
    refused = refusals(task, editable)
    if not refused:
        return outcome
    if isinstance(outcome, Failed):
        return replace(outcome, reason=f"{outcome.reason}; " + "; ".join(refused))
    said = " ".join(f"{line[0].upper()}{line[1:]}." for line in refused)
    candidate = outcome.candidate
    return replace(
        outcome, candidate=replace(candidate, explanation=f"{candidate.explanation} {said}")
    )


def refusals(task: Task, editable: Editable) -> list[str]:
    """Why the change's hunks in test files that the failing tests ran are not reverted."""
    changes = task.changes
    if changes is None:
        return []
    tests = {case.path for case in task.problem.cases}
    said: list[str] = []
    for path in dict.fromkeys(h.path for h in changes.hunks if h.path in tests):
        edit = Edit("replace", path, "", "")
        why = editable.refusal((edit,)) or "the built-in repairer never edits tests"
        made = {_commit(h) for h in changes.hunks if h.path == path}
        said.append(f"the revert of {path} ({', '.join(sorted(made))}) is refused: {why}")
    return said


def _holds(definition: Definition, qualname: str) -> bool:
    return definition.qualname == qualname or qualname.startswith(definition.qualname + ".")


def _inside(changes: Changes, source: SourceFile, definition: Definition) -> list[Hunk]:
    return [
        h
        for h in changes.hunks
        if h.path == source.path and definition.start <= h.new_start and h.new_end <= definition.end
    ]


def _reverts(source: SourceFile, definition: Definition, hunks: Sequence[Hunk]) -> list[Mutant]:
    groups: list[tuple[Hunk, ...]] = [(h,) for h in hunks]
    groups += list(itertools.combinations(hunks, 2))
    if 2 < len(hunks) <= MAX_ALL:
        groups.append(tuple(hunks))
    found = [_mutant(source, definition, group) for group in groups]
    return [m for m in found if m is not None]


def _mutant(source: SourceFile, definition: Definition, group: Sequence[Hunk]) -> Mutant | None:
    text = source.text
    starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    spans: list[tuple[int, int, str]] = []
    for hunk in sorted(group, key=lambda h: h.new_start):
        span = _span(text, starts, hunk)
        if span is None:
            return None
        spans.append(span)
    start, end = spans[0][0], spans[-1][1]
    pieces = [spans[0][2]]
    for before, after in itertools.pairwise(spans):
        pieces += [text[before[1] : after[0]], after[2]]
    replacement = "".join(pieces)
    try:
        compile(text[:start] + replacement + text[end:], source.path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    reverted = tuple(dict.fromkeys(h.commit.sha for h in group if h.commit is not None))
    return Mutant(
        path=source.path,
        function=definition.qualname,
        line=min(h.new_start for h in group),
        operator=OPERATOR,
        description=_describe(source.path, group),
        prior=1.0,
        start=start,
        end=end,
        replacement=replacement,
        in_place=definition.kind == "function"
        and all(h.new_start >= definition.body_start for h in group),
        reverts=reverted,
    )


def _span(text: str, starts: Sequence[int], hunk: Hunk) -> tuple[int, int, str] | None:
    """(start, end, replacement) that puts the hunk's old lines back; None when the file does
    not hold its new lines there (it changed since the diff was read)."""
    first = hunk.new_start - 1
    if first > len(starts) - 1 or first + len(hunk.new) > len(starts):
        return None
    start = starts[first]
    last = first + len(hunk.new)
    end = starts[last] if last < len(starts) else len(text)
    now = "".join(line + "\n" for line in hunk.new)
    old = "".join(line + "\n" for line in hunk.old)
    if text[start:end] != now:
        if not (now.endswith("\n") and text[start:end] == now[:-1] and end == len(text)):
            return None
        old = old[:-1]  # the file's last line has no newline
    return start, end, old


def _describe(path: str, group: Sequence[Hunk]) -> str:
    where = " and ".join(_lines(h) for h in sorted(group, key=lambda h: h.new_start))
    made = ", ".join(sorted({_commit(h) for h in group}))
    return f"revert {where} of {path} to before {made}"


def _lines(hunk: Hunk) -> str:
    if not hunk.new:
        return f"the lines removed before line {hunk.new_start}"
    if len(hunk.new) > 1:
        return f"lines {hunk.new_start}-{hunk.new_end}"
    return f"line {hunk.new_start}"


def _commit(hunk: Hunk) -> str:
    commit = hunk.commit
    if commit is None:
        return "the uncommitted change"
    return f'{commit.short} "{commit.subject}"' if commit.subject else commit.short
