"""Vetting: every fix the search finds is probed (overfit.py) before it is taken.

A fix that raises into its own function's fallback is refused, and the search goes on after it.
A fix that heals by no longer reaching the line that raised, or that makes an example of its
function's docstring false, is kept aside, and the search goes on for a while (as much work again
as it took, at least ``GRACE`` of a quiet machine's seconds (work.py), the raising line's
candidates first) for one that heals without either. A fix kept aside for a docstring is given
when nothing better is found, with the example named (the tests are the user's newer word). One
that skips the line, and a fix of some of the problem's cases only, is reported for what it is and
is a fix only under ``--heal-partial``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from pytest_caretaker.builtin.beyond import judged
from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.overfit import Finding, examine
from pytest_caretaker.builtin.search import Scan, Searcher
from pytest_caretaker.problem import Failed, Healed, Task
from pytest_caretaker.results import Candidate, Spend
from pytest_caretaker.text import plural
from pytest_caretaker.verify.trials import Trial

#: The work (a quiet machine's seconds, at least) the search goes on for a better fix once it
#: found one that skips a line.
GRACE = 3.0
PARTIAL_NOTE = "--heal-partial writes such fixes"


@dataclass
class Vetting:
    """Runs a Scan and vets what it finds."""

    repairer: Searcher
    scan: Scan
    raised: tuple[str, int] | None  # the line of code under test that raised
    refused: list[str] = field(default_factory=list)
    aside: tuple[Healed, str] | None = None  # a fix kept aside (skips, contradicts), and why
    aside_edit: Mutant | None = None  # its edit
    contradicting: bool = False  # what is kept aside contradicts a docstring, skips no line
    until: float = 0.0  # the work done (Work.done) when to stop looking for a better one

    def run(self, mutants: Sequence[Mutant]) -> Healed | None:
        """The first fix among mutants that passes vetting; None when there is none (in time)."""
        rest = list(mutants)
        while rest:
            found = self._scan(rest)
            if found is None:
                return None
            mutant = self.repairer.fixes.pop()  # the fix the scan took
            finding = examine(found.candidate, self._probe, self.raised)
            said = f"{mutant.description} on line {mutant.line}"
            if finding.refused:
                self.refused.append(f"{said}: {finding.refused}")
            elif finding.skipped or finding.contradicts:
                if self.aside is None:
                    done = self.scan.work.done()
                    self.until = done + max(GRACE, done)
                # Of the two, one that contradicts a docstring is the better: it skips no line.
                if self.aside is None or (finding.contradicts and not self.contradicting):
                    self.aside = (
                        found,
                        f"{said} heals, but {finding.skipped or finding.contradicts}",
                    )
                    self.aside_edit = mutant
                    self.contradicting = bool(finding.contradicts)
            else:
                self.repairer.fixes.append(mutant)
                return found
            rest = self._after(rest, mutant)
        return None

    def _scan(self, mutants: Sequence[Mutant]) -> Healed | None:
        """scan.run, ending by the grace of a fix kept aside if there is one."""
        if self.aside is None:
            return self.scan.run(mutants)
        work = self.scan.work
        limit = work.limit
        work.limit = min(limit, self.until)
        try:
            return self.scan.run(mutants)
        finally:
            work.limit = limit
            self.scan.late = work.over()

    def _after(self, mutants: list[Mutant], taken: Mutant) -> list[Mutant]:
        rest = mutants[mutants.index(taken) + 1 :]
        if self.aside is None or self.raised is None:
            return rest
        path, line = self.raised
        on_it = [m for m in rest if (m.path, m.line) == (path, line)]
        return on_it + [m for m in rest if m not in on_it]

    def weighed(self, found: Healed, task: Task) -> Healed:
        """The fix the scan took, weighed beyond the tests against the others it found after
        it (beyond.py): it, another of them, or one of them UNSURE."""
        fix, others = self.repairer.fixes[-1], list(self.scan.alternatives)
        if self.aside_edit is not None:  # a fix kept aside is weighed too (its guard, say)
            others.insert(0, self.aside_edit)  # found before the fix: named first if passed over
            self.aside = None  # the judge's word on it is the one said
        limit = self.scan.run_limit
        return judged(self.repairer, task, found, fix, others, self.examine, limit, self.raised)

    def examine(self, candidate: Candidate) -> Finding:
        """What probing candidate finds (for another fix than the one the scan took)."""
        return examine(candidate, self._probe, self.raised)

    def _probe(self, path: str, qualname: str, line: int, text: str) -> Trial | None:
        trials = self.repairer.trials
        if trials is None:
            return None
        where = str(self.repairer.runner.root / path)
        lead = self.scan.tests[:1]
        return trials.run(lead, self.scan.limit, where, qualname, line, text)

    def fallback(self, allowed: bool, name: str) -> Healed | Failed | None:
        """What is left when no fix passed vetting: a fix that skips the raising line or one of
        some cases (allowed: under --heal-partial, as a fix saying so; else a reason)."""
        spend = Spend(candidates=self.scan.tried)
        if self.aside is not None:
            healed, said = self.aside
            if allowed or self.contradicting:  # the tests are the newer word than a docstring
                note = f" Read it twice: {said.split(' heals, but ', 1)[1]}."
                return replace(healed, candidate=_noted(healed, note), spend=spend)
            return Failed(
                f"the only fix found skips the line that failed: {said} ({PARTIAL_NOTE})", spend
            )
        partial = self.scan.partial
        if partial.found is None:
            return None
        candidate, _, count = partial.found
        finding = examine(candidate, self._probe, self.raised)
        if finding.refused:
            self.refused.append(f"a fix of {count} of {partial.cases} cases: {finding.refused}")
            return None
        if allowed:
            return partial.healed(spend, name)
        return Failed(
            f"a partial fix heals {count} of the {partial.cases} failing cases of this problem, "
            f"not all ({candidate.explanation.split(': ', 1)[-1].split(' (', 1)[0]}); partial "
            f"fixes are not written ({PARTIAL_NOTE})",
            spend,
        )

    def passed_over(self, found: Healed) -> Healed:
        """found, saying which fix kept aside it won over, if one was (the one ranked first)."""
        if self.aside is None:
            return found
        return replace(found, candidate=_noted(found, f" Passed over: {self.aside[1]}."))

    def refusals(self) -> str:
        """The refused fixes, as a clause for a reason; empty when none was."""
        if not self.refused:
            return ""
        return f"; {plural(len(self.refused), 'plausible fix')} refused: " + "; ".join(self.refused)


def _noted(healed: Healed, note: str) -> Candidate:
    return replace(healed.candidate, explanation=healed.candidate.explanation + note)
