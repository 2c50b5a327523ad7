"""Fixes proved earlier in the session, tried first on every later problem.

One root cause often fails tests that the grouping cannot tie together (different tests,
different assertions): an off-by-one in cachetools' ``Cache.__setitem__`` fails 161 tests that
make 34 problems, and each problem searched anew for the fix the first had proved. Now a problem
first tries the fixes proved so far whose changed lines its cases ran: each is proved again for
this problem like any proposal (the guards, then the check). A fix found once costs each other
problem of its root cause no search and no tokens.

With a survey (PytestCheck.survey), each new fix is run once, as soon as it is proved, on every
failing case of the session that ran the lines it changes and on the passing tests of their
modules; the check remembers what passed, so the proofs of that fix for the problems to come
run nothing the survey has shown (verify/check.py), and a problem tries first the fix the survey
saw heal its lead case, and not one the survey saw leave it failing.

A fix of code the cases did not run while traced (a module constant, set at import) is not tried
this way: its problem's own search runs.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from pytest_caretaker.problem import Failed, Healed, Task
from pytest_caretaker.project.neighbours import module_of
from pytest_caretaker.results import (
    Accepted,
    Candidate,
    Executed,
    FileChange,
    HealResult,
    Proposal,
    Spend,
)

PER_PROBLEM = 3  # fixes tried on one problem, at most
NEAR = 2  # a case that ran a line this close to a changed one ran the change

#: Runs changes (path -> new bytes) on tests; returns those that passed, None when it could not
#: tell (the run failed as a whole).
Survey = Callable[[Mapping[str, bytes], Sequence[str]], "frozenset[str] | None"]


@dataclass
class Found:
    lead: str  # the case whose repair found the fix
    candidate: Candidate
    repairer: str
    lines: Mapping[str, frozenset[int]]  # per file, the original's lines it changes, and near
    #: The cases a run of it has seen (its proof, its survey), and those that passed there.
    ran: frozenset[str]
    passed: frozenset[str]
    order: int  # when it was found: the session's first fix is 0

    def rank(self, lead: str) -> tuple[bool, int, int]:
        """Seen healing the lead first, then the fix that heals the most, then the newest."""
        return (lead not in self.passed, -len(self.passed), -self.order)


class ProvedFixes:
    """The first link of every chain: the fixes this session has proved, for the next problems."""

    name = "proved"

    def __init__(
        self,
        survey: Survey | None = None,
        failing: Sequence[str] = (),
        passing: Sequence[str] = (),
        executed: Mapping[str, Executed] | None = None,
    ) -> None:
        self._survey, self._executed = survey, executed or {}
        self._failing, self._passing = failing, passing
        self._found: list[Found] = []
        self._tried: set[tuple[str, int]] = set()  # (lead case, fix) proposed already
        self._lock = threading.Lock()

    def done(self, result: HealResult, tried: Sequence[str]) -> None:
        """A repair ended: keep its fix (once per set of changes) for the problems to come, and
        survey it."""
        candidate = result.candidate
        if candidate is None or not candidate.changes:
            return
        lines = changed_lines(candidate.changes)
        lead = result.shared_with or result.nodeid
        ran = frozenset(tried)
        with self._lock:
            if any(_same(kept.candidate, candidate) for kept in self._found):
                return
            healed, order = candidate.passed & ran, len(self._found)
            found = Found(lead, candidate, result.repairer, lines, ran, healed, order)
            self._found.append(found)
        others = [n for n in self._failing if n not in ran and _ran(lines, [self._executed.get(n)])]
        if self._survey is None or not others:
            return
        modules = {module_of(nodeid) for nodeid in others}
        near = [n for n in self._passing if module_of(n) in modules]
        changes = {change.path: change.after for change in candidate.changes}
        passed = self._survey(changes, [*others, *near])
        if passed is not None:
            with self._lock:
                found.ran |= frozenset(others)
                found.passed |= passed & frozenset(others)

    def repair(self, task: Task) -> Healed | Failed:
        lead = task.problem.lead.nodeid
        executed = [task.executed.get(nodeid) for nodeid in task.problem.ids]
        with self._lock:
            left = PER_PROBLEM - sum(tried == lead for tried, _ in self._tried)
            fits = [
                f
                for f in sorted(self._found, key=lambda f: f.rank(lead))
                if (lead in f.passed or lead not in f.ran)
                and (lead, f.order) not in self._tried
                and _ran(f.lines, executed)
            ][: max(0, left)]
            self._tried.update((lead, f.order) for f in fits)
        for fix in fits:
            edits = fix.candidate.edits
            proposal = Proposal(edits, fix.candidate.explanation, changes=fix.candidate.changes)
            decided = task.prove(proposal)
            verdict = "accepted" if isinstance(decided, Accepted) else decided.reason
            task.log.add(
                f"The fix found for {fix.lead} in this session",
                f"its cases ran the lines it changes; verdict: {verdict}",
                code="\n".join(edit.source for edit in edits),
                language="python",
            )
            if isinstance(decided, Accepted):
                return Healed(
                    _doubted(decided.candidate, fix.candidate),
                    Spend(),
                    fix.repairer,
                    decided.verdict,
                    via="shared",
                    shared_with=fix.lead,
                )
        return Failed("")  # nothing proved before holds: not a failure worth a fallback line


def _doubted(proved: Candidate, found: Candidate) -> Candidate:
    """The candidate proved for this problem, with the doubt of the same fix where it was found:
    the tests could not tell it from another there, and this proof did not weigh it again."""
    if proved.doubt is not None or found.doubt is None:
        return proved
    return replace(proved, doubt=found.doubt)


def _ran(lines: Mapping[str, frozenset[int]], executed: Sequence[Executed | None]) -> bool:
    """Whether one of the cases (what each ran while traced) ran one of lines."""
    return any(
        lines[path] & case.lines.get(path, frozenset())
        for case in executed
        if case is not None
        for path in lines
    )


def changed_lines(changes: Sequence[FileChange]) -> dict[str, frozenset[int]]:
    """Per file, the lines of the original the changes replace or insert between (1-based),
    with the NEAR lines on each side."""
    found: dict[str, frozenset[int]] = {}
    for change in changes:
        before = change.before.splitlines()
        after = change.after.splitlines()
        lines: set[int] = set()
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, before, after).get_opcodes():
            if tag != "equal":  # an insertion (i1 == i2) lies between lines i1 and i1 + 1
                first = i1 + 1 if i2 > i1 else i1
                lines.update(range(first - NEAR, max(i2, i1 + 1) + NEAR + 1))
        found[change.path] = frozenset(line for line in lines if line > 0)
    return found


def _same(one: Candidate, other: Candidate) -> bool:
    return {(c.path, c.after) for c in one.changes} == {(c.path, c.after) for c in other.changes}
