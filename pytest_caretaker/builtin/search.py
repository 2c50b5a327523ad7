"""The built-in repairer's search beyond one edit at a time: a fix of some cases of a problem
kept while one of all is looked for (Partial), and two-edit candidates (pairs) once single
edits are exhausted."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import PAIR
from pytest_caretaker.problem import Healed
from pytest_caretaker.results import Candidate, Spend, Verdict

#: Seconds (at least) a search goes on for a fix of every case once it found one of some: as
#: long again as it took to find that one, within the budget.
PARTIAL_GRACE = 3.0


@dataclass
class Partial:
    """The best fix of some but not all cases of a problem found so far."""

    cases: int  # of the problem
    found: tuple[Candidate, Verdict, int] | None = None  # and how many cases it heals
    until: float = 0.0  # when to stop looking for a better one

    def keep(
        self, candidate: Candidate, verdict: Verdict, healed: set[str], started: float
    ) -> None:
        """Keep this fix if it heals more cases than the one kept."""
        if self.found is not None and len(healed) <= self.found[2]:
            return
        if self.found is None:
            now = time.monotonic()
            self.until = now + max(PARTIAL_GRACE, now - started)
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
    )
