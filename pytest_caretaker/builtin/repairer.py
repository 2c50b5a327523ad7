"""The built-in repairer: heal without a model by trying small edits where the failing test ran.

1. Localize by statement: the Ochiai score of every line the failing test executed, against the
   passing tests of its module (``localize.line_scores``).
2. Generate: every single-edit mutant (``mutate.py``) of the functions holding those lines, within
   the scope.
3. Rank: suspiciousness × the operator's prior, so the most local, smallest, likeliest edit is
   tried first; ties keep the order of the source.
4. Verify fast: each candidate runs the failing test, then its passing neighbours, in a forked
   trial (``trials.py``) under a per-candidate time limit; where trials are not available, in the
   ordinary verifier.
5. Confirm: the first candidate that passes is verified once more by the ordinary verifier, with
   the patched file imported afresh, exactly as a model's fix is; only then is it reported, as a
   *plausible* fix.

Everything stops when the per-failure budget (``--heal-builtin-budget``) is spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pytest_caretaker.builtin import mutate
from pytest_caretaker.builtin.mutate import Mutant
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import line_scores
from pytest_caretaker.report.summary import plural
from pytest_caretaker.results import Edit, FileChange, HealResult
from pytest_caretaker.verify.runner import Runner, RunResult, judge
from pytest_caretaker.verify.trials import Trials

NAME = "builtin"
#: The per-candidate time limit is a multiple of the unchanged tests' time, at least MIN_LIMIT
#: in a trial and MIN_RUN_LIMIT in the ordinary verifier (a fresh process to start).
LIMIT_FACTOR = 10.0
MIN_LIMIT = 0.25
MIN_RUN_LIMIT = 5.0


@dataclass
class Builtin:
    runner: Runner
    trials: Trials | None
    sources: ProjectFiles
    tests: TestFiles
    editable: Callable[[str], bool]  # may this file be edited (the scope)
    budget: float
    #: Candidates that healed an earlier failure of this session: tried first, since one bug
    #: often fails several tests, and one fix then heals them all.
    fixes: list[Mutant] = field(default_factory=list)
    _mutants: dict[tuple[str, str], list[Mutant]] = field(default_factory=dict)

    def heal(self, nodeid: str, baseline: RunResult, regression: Sequence[str]) -> HealResult:
        started = time.monotonic()
        deadline = started + self.budget
        ranked = self.candidates(nodeid, baseline, regression)
        if not ranked:
            reason = (
                "the built-in repairer found nothing it may edit in the code the test ran "
                "(it never edits tests)"
            )
            return HealResult(nodeid, False, reason, model=NAME)
        earlier = [m for m in self.fixes if m in ranked]
        ranked = earlier + [m for m in ranked if m not in earlier]
        tests = [nodeid, *regression]
        limit = self._limit(tests)
        run_limit = min(self.runner.timeout, max(MIN_RUN_LIMIT, LIMIT_FACTOR * baseline.seconds))
        tried = 0
        for mutant in ranked:
            left = deadline - time.monotonic()
            if left <= 0:
                return HealResult(
                    nodeid,
                    False,
                    f"the built-in repairer's budget of {self.budget:g} s ran out after "
                    f"{tried:,} of {len(ranked):,} candidate edits",
                    attempts=tried,
                    model=NAME,
                )
            tried += 1
            fixed = self._try(mutant, tests, regression, min(limit, left), min(run_limit, left))
            if fixed is not None:
                edit, applied = fixed
                self.fixes.append(mutant)
                return HealResult(
                    nodeid,
                    True,
                    explanation=_explain(mutant, len(regression)),
                    edits=(edit,),
                    applied=(applied,),
                    attempts=tried,
                    model=NAME,
                )
        return HealResult(
            nodeid,
            False,
            f"the built-in repairer tried all {plural(len(ranked), 'candidate edit')} in "
            f"{time.monotonic() - started:.1f} s; none made the test pass without breaking "
            "another (a model may find a larger fix: --heal-model)",
            attempts=tried,
            model=NAME,
        )

    def candidates(
        self, nodeid: str, baseline: RunResult, regression: Sequence[str]
    ) -> list[Mutant]:
        """Every mutant on a line the failing test ran, best first."""
        scores = line_scores([nodeid], regression, baseline.executed)
        scored: list[tuple[float, int, Mutant]] = []
        for path in sorted({path for path, _ in scores}):
            source = self.sources.get(path)
            # Never a test: an edit that makes a test pass by changing the test (deleting its
            # assert, say) is no fix. Models may edit tests under --heal-scope; this does not.
            if source is None or path in self.tests or not self.editable(path):
                continue
            for definition in mutate.outermost(source):
                lines = range(definition.start, definition.end + 1)
                if not any((path, line) in scores for line in lines):
                    continue
                key = (path, definition.qualname)
                if key not in self._mutants:
                    self._mutants[key] = mutate.mutants(source, definition)
                for mutant in self._mutants[key]:
                    score = scores.get((path, mutant.line), 0.0) * mutant.prior
                    if score > 0:
                        scored.append((score, len(scored), mutant))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [mutant for _, _, mutant in scored]

    def _limit(self, tests: Sequence[str]) -> float:
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

    def _try(
        self,
        mutant: Mutant,
        tests: Sequence[str],
        regression: Sequence[str],
        limit: float,
        run_limit: float,
    ) -> tuple[Edit, FileChange] | None:
        """The candidate's edit and patch if it heals the test; None otherwise."""
        source = self.sources.get(mutant.path)
        if source is None:
            return None
        text = mutant.apply(source.text)
        if self.trials is not None:
            definition = source.find(mutant.function)
            trial = self.trials.run(
                tests,
                limit,
                path=str(self.runner.root / mutant.path),
                qualname=mutant.function,
                line=definition.start if definition is not None else 0,
                source=text,
            )
            if trial is None:
                self.close()  # the server died: go on without it
            elif not trial.passed and not trial.unsupported:
                return None
        try:
            after = source.encode(text)
        except UnicodeEncodeError:
            return None
        applied = FileChange(mutant.path, source.data, after)
        # The proof, as for a model's fix: a fresh process importing the patched file.
        run = self.runner.run(tests, {mutant.path: after}, timeout=run_limit)
        if not judge(run, tests[:1], regression).ok:
            return None
        return Edit(
            "replace", mutant.path, mutant.function, mutate.function_source(source, mutant)
        ), applied


def _explain(mutant: Mutant, neighbours: int) -> str:
    checked = (
        f"and its {plural(neighbours, 'passing neighbour')} "
        + ("still passes" if neighbours == 1 else "still pass")
        if neighbours
        else "(it has no passing neighbours to check against)"
    )
    return (
        f"Plausible fix by the built-in repairer (no model): {mutant.description} on line "
        f"{mutant.line} ({mutant.operator.replace('_', ' ')}). The failing test passes {checked}; "
        "passing the tests does not prove it is the intended fix, so read the diff."
    )
