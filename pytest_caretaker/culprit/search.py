"""The order of a bisection: which earlier commit to run which failing tests at next.

Commits are counted back along HEAD's first parents: 0 is HEAD, 1 its parent, and so on; -1 is
the working tree when it differs from HEAD. Each test has the nearest distance known to fail and
the nearest known to pass. While no pass is known the search gallops back (0 when the tree is
dirty, then 1, 2, 4, 8, … up to the depth): most regressions are recent, and a recent one is
found in a few runs; once one is known it halves the interval until the two are neighbours, and
the newer is the first failing commit. Tests whose intervals hold the next distance run together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass
class Bounds:
    failing: int  # the oldest distance known to fail (nearest the pass)
    passing: int | None = None  # the newest known to pass


@dataclass
class Search:
    tests: Sequence[str]
    depth: int  # the farthest distance that may be run
    dirty: bool = False
    bounds: dict[str, Bounds] = field(default_factory=dict)
    #: The distances run so far, in order (for the transcript and the tests).
    runs: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        for test in self.tests:
            self.bounds.setdefault(test, Bounds(-1 if self.dirty else 0))

    def known(self, test: str, passing: int | None, failing: int | None = None) -> None:
        """What the recorded states tell of test before the search begins."""
        bounds = self.bounds[test]
        if failing is not None:
            bounds.failing = max(bounds.failing, failing)
        if passing is not None and passing > bounds.failing:
            bounds.passing = passing

    def next(self) -> tuple[int, list[str]] | None:
        """The next distance to run and the tests to run there; None when all are settled."""
        for test in self.tests:
            at = self._next_for(self.bounds[test])
            if at is not None:
                return at, [t for t in self.tests if self._open_at(self.bounds[t], at)]
        return None

    def record(self, at: int, passed: Mapping[str, bool]) -> None:
        self.runs.append(at)
        for test, ok in passed.items():
            bounds = self.bounds[test]
            if ok and (bounds.passing is None or at < bounds.passing):
                bounds.passing = at
            elif not ok and at > bounds.failing:
                bounds.failing = at

    def settled(self, test: str) -> tuple[int | None, int]:
        """(the distance of the last green commit, or None, and of the first failing one)."""
        bounds = self.bounds[test]
        return bounds.passing, bounds.failing

    def _next_for(self, bounds: Bounds) -> int | None:
        if bounds.passing is not None:
            gap = bounds.passing - bounds.failing
            return bounds.failing + gap // 2 if gap > 1 else None
        if bounds.failing >= self.depth:
            return None  # red as far back as the search may go
        return min(self.depth, 0 if bounds.failing < 0 else max(1, 2 * bounds.failing))

    @staticmethod
    def _open_at(bounds: Bounds, at: int) -> bool:
        return bounds.failing < at and (bounds.passing is None or at < bounds.passing)
