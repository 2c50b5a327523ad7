"""The built-in repairer's search: candidates tried in order until one heals every case of the
problem (Scan), a fix of some cases kept while one of all is looked for (Partial), two-edit
candidates (pairs) once single edits are exhausted, and the runner-ups after the fix."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import PAIR
from pytest_caretaker.builtin.work import Work
from pytest_caretaker.problem import Healed, Problem, Task
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.results import Candidate, Spend, Verdict
from pytest_caretaker.verify.trials import Trial, Trials


class Searcher(Protocol):
    """What a Scan uses of the built-in repairer (repairer.BuiltinRepairer)."""

    name: str
    fixes: list[Mutant]
    #: Candidates that failed the trial or proof of an earlier problem of the session.
    failed: set[Mutant]
    trials: Trials | None
    files: ProjectFiles

    @property
    def runner(self) -> Bounds: ...

    def trial_limit(self, tests: Sequence[str]) -> float: ...

    def run_limit(self, baseline_seconds: float) -> float: ...

    def tried(
        self, mutants: Iterable[Mutant], tests: Sequence[str], limit: Callable[[], float]
    ) -> Generator[tuple[Mutant, Trial | None], None, None]: ...

    def attempt(
        self, mutant: Mutant, problem: Problem, trial: Trial | None, run_limit: float
    ) -> tuple[Candidate, Verdict] | None: ...


class Bounds(Protocol):
    """Where the project is and how long one verification run may take (a Runner has both)."""

    @property
    def root(self) -> Path: ...

    @property
    def timeout(self) -> float: ...


#: The work (a quiet machine's seconds, work.py) a search goes on for, at least, for a fix of
#: every case once it found one of some: as much again as it took to find that one, within
#: the budget.
PARTIAL_GRACE = 3.0


@dataclass
class Partial:
    """The best fix of some but not all cases of a problem found so far."""

    cases: int  # of the problem
    found: tuple[Candidate, Verdict, int] | None = None  # and how many cases it heals
    until: float = 0.0  # the work done (Work.done) when to stop looking for a better one

    def keep(self, candidate: Candidate, verdict: Verdict, healed: set[str], work: Work) -> None:
        """Keep this fix if it heals more cases than the one kept."""
        if self.found is not None and len(healed) <= self.found[2]:
            return
        if self.found is None:
            done = work.done()
            self.until = done + max(PARTIAL_GRACE, done)
        self.found = (candidate, verdict, len(healed))

    def healed(self, spend: Spend, by: str) -> Healed:
        assert self.found is not None
        candidate, verdict, count = self.found
        note = (
            f" It heals {count} of the {self.cases} failing cases of this problem; no single "
            "edit tried healed them all, so the others are repaired on their own."
        )
        candidate = replace(candidate, explanation=candidate.explanation + note)
        return Healed(candidate, spend, by, verdict)


#: Two-edit candidates are pairs of the best PAIR_TOP single edits of one function.
PAIR_TOP = 12


def pairs(
    ranked: list[Mutant], text_of: Callable[[str], str | None], top: int = PAIR_TOP
) -> list[Mutant]:
    """Two edits at once, each pair of the best-ranked single edits of one function that do not
    overlap, as one Mutant spanning both (text_of gives a file's text); the best pairs (by
    their ranks' sum) first."""
    best = ranked[:top]
    found: list[tuple[int, int, Mutant]] = []
    for i, first in enumerate(best):
        for j in range(i + 1, len(best)):
            second = best[j]
            if (first.path, first.function) != (second.path, second.function):
                continue
            text = text_of(first.path)
            pair = _joined(first, second, text) if text is not None else None
            if pair is not None:
                found.append((i + j, i, pair))
    found.sort(key=lambda item: (item[0], item[1]))
    return [pair for _, _, pair in found]


def _joined(a: Mutant, b: Mutant, text: str) -> Mutant | None:
    first, second = sorted((a, b), key=lambda m: (m.start, m.end))
    if first.end > second.start:
        return None  # they overlap
    between = text[first.end : second.start]
    return Mutant(
        path=first.path,
        function=first.function,
        line=b.line,  # the explanation reads "<a> on line <a's> and <b> on line <b's>"
        operator=f"{a.operator}{PAIR}{b.operator}",
        description=f"{a.description} on line {a.line} and {b.description}",
        prior=a.prior * b.prior,
        start=first.start,
        end=second.end,
        replacement=first.replacement + between + second.replacement,
        in_place=a.in_place and b.in_place,
        reverts=tuple(dict.fromkeys(a.reverts + b.reverts)),
    )


#: The share of a problem's budget for the candidates an earlier problem of the session rejected
#: (Scan.stale). One bug often fails tests that make many problems (different tests, different
#: assertions); where its fix is out of reach, each searched the same code in full (semver's build
#: separator: nine searches, 103 s). A second bug in that code keeps its fix: tried in its rank.
STALE_SHARE = 0.1
#: After the fix, the next ALTERNATIVES_TRIED candidates are tried against every case of the
#: problem, and the first ALTERNATIVES that pass are the fixes judge.py weighs against it: the
#: tests are often weaker than the code, and the first fix found is not always the right one.
ALTERNATIVES_TRIED = 40
ALTERNATIVES = 3
ALTERNATIVE_CASES = 10
#: The search for other fixes stops once this many of its trials ran out of time (in a loop
#: whose bound the candidates break, most do, each at the cost of its limit).
ALTERNATIVES_HUNG = 2
#: The candidates tried before the fix that the fix keeps a note of (for pytest -v).
TRIED_NOTED = 5


@dataclass
class Scan:
    """Tries candidates in order until one heals every case of the problem, the work budget or
    the wall-clock ceiling is spent (work.py), or (with a fix of some cases kept) the grace for
    a better one is over."""

    repairer: Searcher
    task: Task
    work: Work
    #: Candidates that failed the case of an earlier problem of the session: they rarely fix
    #: this one, so they are tried (in rank order, among the others) only while the work they
    #: took stays within stale_share (a quiet machine's seconds); then they are left out.
    stale: frozenset[Mutant] = frozenset()
    stale_share: float = 0.0
    left_out: set[Mutant] = field(default_factory=set)
    tried: int = 0
    late: bool = False  # stopped by the budget
    rejected: list[str] = field(default_factory=list)  # the first TRIED_NOTED that failed
    partial: Partial = field(init=False)
    #: The fix's alternatives: the next candidates that pass every case too (judge.py).
    alternatives: list[Mutant] = field(default_factory=list)

    def __post_init__(self) -> None:
        problem = self.task.problem
        self.partial = Partial(len(problem.ids))
        # A problem of cases that hung trials a second case too: a candidate that ends the
        # lead's loop only would otherwise reach the proof, where each case it leaves hanging
        # costs its whole limit (find_position: two such proofs were 6 s of a 9.5 s repair).
        second = list(problem.ids[1:2]) if problem.lead.timed_out else []
        self.tests = [problem.lead.nodeid, *second, *problem.regression]
        self.limit = self.repairer.trial_limit(self.tests)
        self.run_limit = self.repairer.run_limit(self.task.baseline_seconds)

    def run(self, mutants: Sequence[Mutant]) -> Healed | None:
        problem = self.task.problem
        # Trials run ahead on the server's workers; they are taken in order all the same.
        tried = self.repairer.tried(self._admitted(mutants), self.tests, self._trial_limit)
        try:
            for mutant, trial in tried:
                if self.partial.found and self.work.done() >= self.partial.until:
                    return None
                if self.work.over():
                    self.late = True
                    return None
                self.tried += 1
                took = self.work.charge(trial, self.limit)
                left = self.work.wall_left()
                fixed = self.repairer.attempt(mutant, problem, trial, min(self.run_limit, left))
                if mutant in self.stale:
                    self.stale_share -= took
                if fixed is None:
                    self.repairer.failed.add(mutant)
                    if len(self.rejected) < TRIED_NOTED:
                        self.rejected.append(f"{mutant.description} on line {mutant.line}")
                    continue
                candidate, verdict = fixed
                if set(problem.ids[1:]) <= verdict.passed:  # every case of the problem: the fix
                    self.repairer.fixes.append(mutant)
                    tried.close()
                    rest = mutants[mutants.index(mutant) + 1 :]
                    self.alternatives = self._alternatives(rest)
                    ups = tuple(
                        f"{m.description} on line {m.line} ({m.path})" for m in self.alternatives
                    )
                    noted = replace(candidate, tried=tuple(self.rejected), runner_ups=ups)
                    return Healed(noted, Spend(candidates=self.tried), self.repairer.name, verdict)
                # Some cases only: kept as a lead while a fix of them all is looked for a while.
                self.partial.keep(
                    candidate,
                    verdict,
                    {problem.lead.nodeid} | (set(problem.ids) & verdict.passed),
                    self.work,
                )
        finally:
            tried.close()
        return None

    def _admitted(self, mutants: Sequence[Mutant]) -> Iterator[Mutant]:
        """mutants in order, those of an earlier problem only while their share lasts (decided
        as each is sent: the trials running ahead may take it a little past)."""
        for mutant in mutants:
            if mutant in self.stale and self.stale_share <= 0:
                self.left_out.add(mutant)
                continue
            yield mutant

    def _trial_limit(self) -> float:
        """Time the next trial may take: the trial limit, within the wall-clock ceiling."""
        return max(0.0, min(self.limit, self.work.wall_left()))

    def _alternatives(self, rest: Sequence[Mutant]) -> list[Mutant]:
        """The next candidates that pass every case of the problem and its regression set in a
        trial too (not proved further): fixes the tests cannot tell from the one taken, unless
        judge.py can. A count of trials bounds it, not a clock: a busy machine finds the same."""
        if self.repairer.trials is None or not rest:
            return []
        problem = self.task.problem
        # The first cases stand for the rest, as in the proof's reruns (a bug of 240 cases).
        tests = list(dict.fromkeys([*problem.ids[:ALTERNATIVE_CASES], *self.tests]))
        scale = len(tests) / len(self.tests)
        passed: list[Mutant] = []
        tried = self.repairer.tried(
            rest[:ALTERNATIVES_TRIED], tests, lambda: self._trial_limit() * scale
        )
        hung = 0  # trials that ran out of time: each costs its whole limit
        with closing(tried):
            for mutant, trial in tried:
                if trial is not None and trial.passed:
                    passed.append(mutant)
                hung += trial is not None and "did not finish" in trial.reason
                if len(passed) >= ALTERNATIVES or hung >= ALTERNATIVES_HUNG:
                    break
                if self.work.wall_left() <= 0:
                    break
        if passed:
            self.task.log.add(
                "Other fixes",
                "These next candidates pass every failing case and its neighbours in a trial "
                "too; the one taken ranked first in the search, and all are weighed beyond the "
                "tests:\n"
                + "\n".join(f"- {m.description} on line {m.line} ({m.path})" for m in passed),
            )
        return passed
