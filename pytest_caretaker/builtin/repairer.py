"""The built-in repairer: heal without a model by trying small edits where the failing test ran.

1. Localize by statement: the Ochiai score of every line the failing test executed, against the
   passing tests of its module (``localize.line_scores``).
2. Generate: every single-edit mutant (``mutate.py``) of the functions holding those lines, within
   the scope.
3. Rank: suspiciousness × the operator's prior, so the most local, smallest, likeliest edit is
   tried first; ties keep the order of the source.
4. Verify fast: each candidate runs the failing test, then its passing neighbours, in a forked
   trial (``verify/trials.py``) under a per-candidate time limit, the next candidates' trials
   running meanwhile on the server's other workers (``--heal-workers``) and taken in rank
   order all the same; where trials are not available, in the problem's check.
5. Confirm: the first candidate that passes is proved once more by the problem's check, with the
   patched file imported afresh, exactly as a model's fix is; only then is it reported, as a
   *plausible* fix.

Everything stops when the per-failure budget (``--heal-builtin-budget``) is spent: work counted,
not seconds clocked (work.py), with the seconds a ceiling on the wall clock; generating the
candidates counts too. One trial server serves the session, so one problem is searched at a
time.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace

from pytest_caretaker.builtin import evidence, mutate, ranking, reverts, vocabulary
from pytest_caretaker.builtin.beyond import weighed_alone
from pytest_caretaker.builtin.evidence import Evidence
from pytest_caretaker.builtin.explain import explain
from pytest_caretaker.builtin.mutate import Mutant
from pytest_caretaker.builtin.reach import Vocabulary
from pytest_caretaker.builtin.search import STALE_SHARE, Bounds, Scan, pairs
from pytest_caretaker.builtin.vetting import Vetting
from pytest_caretaker.builtin.work import Work
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.problem import Check, Failed, Healed, Problem, Task
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.results import Candidate, Edit, Executed, FileChange, Spend, Verdict
from pytest_caretaker.settings import BUILTIN
from pytest_caretaker.text import plural
from pytest_caretaker.verify.trials import Candidate as TrialCandidate
from pytest_caretaker.verify.trials import Trial, Trials

#: The per-candidate time limit is a multiple of the unchanged tests' time, at least MIN_LIMIT
#: in a trial and MIN_RUN_LIMIT in the ordinary verifier (a fresh process to start).
LIMIT_FACTOR = 10.0
MIN_LIMIT = 0.25
MIN_RUN_LIMIT = 5.0
NOTHING = (
    "the built-in repairer found nothing it may edit in the code the test ran "
    "(it never edits tests)"
)


@dataclass
class BuiltinRepairer:
    runner: Bounds  # for the project's root and the verification time limit
    check: Check
    trials: Trials | None
    files: ProjectFiles
    editable: Editable
    budget: float  # per problem: the work a quiet machine does in this many seconds (work.py)
    name: str = BUILTIN
    #: Candidates that healed an earlier failure of this session: tried first, since one bug
    #: often fails several tests, and one fix then heals them all.
    fixes: list[Mutant] = field(default_factory=list)
    #: Candidates that failed an earlier problem's case: tried within a share (Scan.stale).
    failed: set[Mutant] = field(default_factory=set)
    stale_share: float = STALE_SHARE  # of the budget's work, for those
    _mutants: ranking.Made = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: What passing the check shows, when it is not tests (``caretaker run``'s command).
    proof: str | None = None
    #: Report a fix of some of a problem's cases, or one that heals by skipping the line that
    #: raised, as a fix (--heal-partial); else as the reason it is not one.
    heal_partial: bool = False

    def repair(self, task: Task) -> Healed | Failed:
        with self._lock:  # one trial server: one problem at a time
            # Another problem's repair may have proved a fix for this one meanwhile.
            since = task.proved_since() if task.proved_since is not None else None
            if isinstance(since, Healed):
                return since
            outcome = reverts.noted(self._search(task), task, self.editable)
        said = outcome.candidate.explanation if isinstance(outcome, Healed) else outcome.reason
        task.log.add(
            "Built-in repairer",
            f"{plural(outcome.spend.candidates, 'candidate edit')} tried; {said}",
        )
        return outcome

    def _search(self, task: Task) -> Healed | Failed:
        work = Work.of(self.budget, task.limits.seconds_left())
        problem = task.problem
        told = evidence.read(
            problem.cases, self.editable.tests, lambda path: _text(self.files, path)
        )
        words = vocabulary.of_failure(problem.cases, self.files)
        ranked = self.candidates(
            problem.lead.nodeid, task.executed, problem.regression, problem.ids, told, words, work
        )
        if work.over():  # generating them spent the budget
            said = _session(work, task) or work.spent()
            return Failed(f"{said} while generating candidate edits ({work.generated:,} generated)")
        ranked = reverts.first(task, ranked, self.files, self.editable)
        if not ranked:
            return Failed(NOTHING)
        earlier = [m for m in self.fixes if m in ranked]
        ranked = earlier + [m for m in ranked if m not in earlier]
        share = self.stale_share * work.seconds
        scan = Scan(self, task, work, frozenset(self.failed), share)
        vetting = Vetting(self, scan, told.raised)
        found = vetting.run(ranked)
        total = len(ranked)
        if found is None and not scan.late and vetting.aside is None:
            # Single edits exhausted with time left: two at once, best-ranked first.
            two = pairs(ranked, lambda path: _text(self.files, path))
            total += len(two)
            found = vetting.run(two)
        if vetting.refused:
            task.log.add("Refused", "Plausible fixes refused:\n" + "\n".join(vetting.refused))
        if found:
            return vetting.passed_over(vetting.weighed(found, task))
        left = vetting.fallback(self.heal_partial, self.name)
        if left is not None:
            return left
        refused = vetting.refusals()
        if scan.late:
            spent = _session(work, task) or work.spent()
            return Failed(
                f"{spent} after {scan.tried:,} of {total:,} candidate edits{work.which()}{refused}",
                Spend(candidates=scan.tried),
            )
        took = f"{time.monotonic() - work.started:.1f} s"
        tried = (
            f"{scan.tried:,} of {total:,} candidate edits in {took}, leaving out "
            f"{plural(len(scan.left_out), 'edit')} that failed the case of an earlier problem in "
            "this session"
            if scan.left_out
            else f"all {plural(scan.tried, 'candidate edit')} in {took}"
        )
        return Failed(
            f"the built-in repairer tried {tried}; none made the test pass without breaking "
            f"another{refused}",
            Spend(candidates=scan.tried),
            advice="a model may find a larger fix: --heal-model",
        )

    def weigh(self, task: Task, healed: Healed) -> Healed:
        """Another repairer's fix (a model's), weighed beyond the tests (beyond.py)."""
        if self.trials is None:
            return healed
        with self._lock:  # one trial server: one problem at a time
            return weighed_alone(self, task, healed)

    def candidates(
        self,
        nodeid: str,
        executed: Mapping[str, Executed],
        regression: Sequence[str],
        others: Sequence[str] = (),
        told: Evidence | None = None,
        words: Vocabulary | None = None,
        work: Work | None = None,
    ) -> list[Mutant]:
        """Every mutant on a line the failing test ran, best first (ranking.py); generating
        them counts as work, and ends when it is over."""
        made = (self.files, self.editable, self._mutants)
        return ranking.ranked(made, nodeid, executed, regression, others, told, words, work)

    def trial_limit(self, tests: Sequence[str]) -> float:
        """Time one candidate may take: a multiple of the unchanged tests' time in a trial."""
        timeout = self.runner.timeout
        if self.trials is None or not self.trials.ready():
            return timeout
        reference = self.trials.run(tests, timeout)
        if reference is None or not set(tests) <= self.trials.collected:
            self.close()
            return timeout
        # The failing test must fail here too, or trials cannot tell a fix from the original.
        if reference.passed or not reference.reason.startswith(tests[0]):
            self.close()
            return timeout
        return min(timeout, max(MIN_LIMIT, LIMIT_FACTOR * reference.seconds))

    def close(self) -> None:
        """Stop the trial server; candidates then go to the ordinary verifier."""
        if self.trials is not None:
            self.trials.close()
            self.trials = None

    def run_limit(self, baseline_seconds: float) -> float:
        """Time one confirming run of a candidate may take in the ordinary verifier."""
        return min(self.runner.timeout, max(MIN_RUN_LIMIT, LIMIT_FACTOR * baseline_seconds))

    def tried(
        self, mutants: Iterable[Mutant], tests: Sequence[str], limit: Callable[[], float]
    ) -> Generator[tuple[Mutant, Trial | None], None, None]:
        """Each mutant with its trial (None: no trial, the ordinary verifier decides), the trials
        running ahead on the server's workers, within limit() each when sent."""
        trials = self.trials
        if trials is None:
            yield from ((mutant, None) for mutant in mutants)
            return
        sent: deque[Mutant] = deque()

        def candidates() -> Iterator[TrialCandidate]:
            for mutant in mutants:
                source = self.files.get(mutant.path)
                if source is None:
                    continue
                definition = source.find(mutant.function)
                sent.append(mutant)
                yield TrialCandidate(
                    tests,
                    limit(),
                    path=str(self.runner.root / mutant.path),
                    # No function to swap: the server says "unsupported", the verifier decides.
                    qualname=mutant.function if mutant.in_place else "",
                    line=definition.start if definition is not None else 0,
                    source=mutant.apply(source.text),
                )

        with closing(trials.map(candidates())) as done:
            for trial in done:
                if trial is None and self.trials is not None:
                    self.close()  # the server died: go on without it
                yield sent.popleft(), trial

    def attempt(
        self, mutant: Mutant, problem: Problem, trial: Trial | None, run_limit: float
    ) -> tuple[Candidate, Verdict] | None:
        """The candidate and the verdict that proves it if it heals the lead case; else None.
        A trial it failed (not one it could not run) rules it out at once."""
        source = self.files.get(mutant.path)
        if source is None:
            return None
        if trial is not None and not trial.passed and not trial.unsupported:
            return None
        text = mutant.apply(source.text)
        try:
            after = source.encode(text)
        except UnicodeEncodeError:
            return None
        # The proof, as for a model's fix: a fresh process importing the patched file.
        verdict = self.check(problem, {mutant.path: after}, timeout=run_limit)
        if not verdict.ok:
            return None
        edit = Edit("replace", mutant.path, mutant.function, mutate.function_source(source, mutant))
        change = FileChange(mutant.path, source.data, after)
        explanation = explain(mutant, len(problem.regression), self.proof)
        candidate = Candidate((edit,), (change,), explanation, passed=verdict.passed)
        return replace(candidate, reverts=mutant.reverts), verdict


def _session(work: Work, task: Task) -> str | None:
    """Why the search stopped when the session's healing time did (None if it did not, or the
    work budget ran out too: that is the reason a quiet machine would give)."""
    if not work.session or work.wall_left() > 0 or work.done() >= work.seconds:
        return None
    return task.limits.out_of_time() or "the session's healing budget is spent"


def _text(files: ProjectFiles, path: str) -> str | None:
    source = files.get(path)
    return source.text if source is not None else None
