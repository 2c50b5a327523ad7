"""The numbers of the report, from the history's records: plain values, tested on a fixed
history file, that page.py only lays out.

The unit is the bug: a problem (one root cause, however many tests it fails) met in one session
or in many. A bug is healed once a verified fix was found for it; unsure while the only fixes
found were ones the tests cannot tell from another (no heal: counted apart, and as not healed in
the rates and charts). A remembered fix replayed from the cache of an earlier session is shown
apart: it is no new success, and the rates per repairer count fresh repairs only.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pytest_caretaker.history.rows import Record, Seen, kind, seen, test_id, text


@dataclass(frozen=True)
class Row:
    """A tally: of a repairer's fresh repairs, of the bugs of an exception type."""

    name: str
    healed: int = 0
    not_healed: int = 0
    tokens: int = 0
    cost: float = 0.0
    median_seconds: float = 0.0

    @property
    def total(self) -> int:
        return self.healed + self.not_healed

    @property
    def rate(self) -> float:
        return self.healed / self.total if self.total else 0.0


@dataclass(frozen=True)
class Bug:
    """One problem across the sessions that met it, oldest first."""

    seen: tuple[Seen, ...]

    @property
    def first(self) -> Seen:
        return self.seen[0]

    @property
    def last(self) -> Seen:
        return self.seen[-1]

    @property
    def kind(self) -> str:
        return kind(self.first["source"])

    @property
    def tests(self) -> list[str]:
        return list(dict.fromkeys(t for s in self.seen for t in s.tests))

    @property
    def healed(self) -> bool:
        return any(s.healed for s in self.seen)

    @property
    def unsure(self) -> bool:
        """Never healed, but an UNSURE fix was found for it."""
        return not self.healed and any(s.unsure for s in self.seen)

    @property
    def status(self) -> str:
        return "healed" if self.healed else "unsure" if self.unsure else "not healed"

    @property
    def fix(self) -> Seen | None:
        """The session that found its fix (a repair; else the first replay of one)."""
        return next((s for s in self.seen if s.healed and s.fresh), None) or next(
            (s for s in self.seen if s.healed), None
        )

    @property
    def replays(self) -> int:
        return sum(1 for s in self.seen if not s.fresh)

    @property
    def commit(self) -> tuple[str, str]:
        """The latest commit of its fix: short hash and subject."""
        return next((s.commit for s in reversed(self.seen) if s.commit[0]), ("", ""))

    @property
    def written(self) -> str:
        """Its fix, the latest time it was written and not committed, and why (Seen.written)."""
        return next((s.written for s in reversed(self.seen) if s.written), "")


@dataclass(frozen=True)
class Session:
    """One session's problems, by how each ended."""

    id: str
    time: str
    seen: tuple[Seen, ...]

    def count(self, outcome: str) -> int:
        return sum(1 for s in self.seen if s.outcome == outcome)


@dataclass(frozen=True)
class TestView:
    """One test across sessions: when it first failed, what was tried, what healed it."""

    test: str
    seen: tuple[Seen, ...]  # its problem in each session it failed, oldest first

    @property
    def tried(self) -> Counter[str]:
        return Counter(name for s in self.seen for name, _ in s.tried)


@dataclass(frozen=True)
class Reason:
    category: str
    count: int
    example: str  # the most frequent reason of the category


@dataclass(frozen=True)
class Stats:
    records: list[Record]  # oldest first
    seen: list[Seen]  # each problem of each session
    bugs: list[Bug]
    sessions: list[Session]
    first: str
    last: str
    by_repairer: list[Row] = field(default_factory=list)  # fresh repairs only
    by_exception: list[Row] = field(default_factory=list)  # bugs
    reasons: list[Reason] = field(default_factory=list)
    tests: list[TestView] = field(default_factory=list)

    @property
    def healed(self) -> int:
        return sum(1 for bug in self.bugs if bug.healed)

    @property
    def unsure(self) -> int:
        return sum(1 for bug in self.bugs if bug.unsure)

    @property
    def replays(self) -> int:
        return sum(1 for s in self.seen if not s.fresh)

    @property
    def fresh(self) -> Row:
        """Every fresh repair: how many healed their problem."""
        fresh = [s for s in self.seen if s.fresh]
        return _tally("fresh repairs", [(s, s.healed) for s in fresh], fresh)

    def total(self, key: str) -> float:
        return sum(s.total(key) for s in self.seen)


def compute(records: Iterable[Record], since: str = "") -> Stats:
    """The report's numbers; since (an ISO date or UTC time) drops the records before it."""
    kept = sorted((r for r in records if text(r, "time") >= since), key=lambda r: text(r, "time"))
    problems = seen(kept)
    times = [s["time"] for s in problems if s["time"]]
    return Stats(
        records=kept,
        seen=problems,
        bugs=bugs(problems),
        sessions=sessions(problems),
        first=min(times, default=""),
        last=max(times, default=""),
        by_repairer=by_repairer(problems),
        by_exception=by_exception(bugs(problems)),
        reasons=not_healed_reasons(problems),
        tests=tests(problems),
    )


def bugs(problems: Iterable[Seen]) -> list[Bug]:
    """The bugs, the latest met first."""
    grouped: dict[tuple[str, str], list[Seen]] = defaultdict(list)
    for problem in problems:
        grouped[problem.key].append(problem)
    found = sorted((Bug(tuple(members)) for members in grouped.values()), key=lambda b: b.first.key)
    return sorted(found, key=lambda b: b.last["time"], reverse=True)  # stable: ties by id


def sessions(problems: Iterable[Seen]) -> list[Session]:
    """The sessions, oldest first."""
    grouped: dict[str, list[Seen]] = defaultdict(list)
    for problem in problems:
        grouped[problem["session"]].append(problem)
    found = [Session(id, members[0]["time"], tuple(members)) for id, members in grouped.items()]
    return sorted(found, key=lambda s: (s.time, s.id))


def tests(problems: Iterable[Seen]) -> list[TestView]:
    """Each test and the problems it failed in, the test that failed first first."""
    grouped: dict[tuple[str, str], list[Seen]] = defaultdict(list)
    for problem in problems:
        for test in problem.tests:
            grouped[(problem.key[0], test)].append(problem)
    found = [TestView(test, tuple(members)) for (_, test), members in grouped.items()]
    return sorted(found, key=lambda t: (t.seen[0]["time"], t.test))


def _tally(name: str, outcomes: Sequence[tuple[Seen, bool]], spent: Sequence[Seen]) -> Row:
    """outcomes: each problem and whether it healed; spent: those whose spend counts here."""
    won = sum(1 for _, healed in outcomes if healed)
    return Row(
        name,
        won,
        len(outcomes) - won,
        int(sum(s.total("tokens") for s in spent)),
        sum(s.total("cost") for s in spent),
        statistics.median(s.seconds for s in spent) if spent else 0.0,
    )


def by_repairer(problems: Iterable[Seen]) -> list[Row]:
    """Each repairer's fresh repairs: every problem it was asked about and how many it healed;
    a problem's tokens, cost and time count for the last one asked (they are the chain's).
    Remembered fixes are no repairs: they are counted apart."""
    asked: dict[str, list[tuple[Seen, bool]]] = defaultdict(list)
    spent: dict[str, list[Seen]] = defaultdict(list)
    for problem in problems:
        for name, healed in problem.tried:
            asked[name].append((problem, healed))
        if problem.tried:
            spent[problem.tried[-1][0]].append(problem)
    rows = [_tally(name, outcomes, spent[name]) for name, outcomes in asked.items()]
    return sorted(rows, key=lambda r: (-r.total, r.name))


def by_exception(found: Iterable[Bug]) -> list[Row]:
    """The bugs by the exception they raised: healed or not, and what all their repairs cost."""
    grouped: dict[str, list[Bug]] = defaultdict(list)
    for bug in found:
        grouped[bug.first["exception"] or "(unknown)"].append(bug)
    rows = []
    for name, members in grouped.items():
        met = [s for bug in members for s in bug.seen]
        won = sum(1 for bug in members if bug.healed)
        tokens, cost = int(sum(s.total("tokens") for s in met)), sum(s.total("cost") for s in met)
        seconds = statistics.median(s.seconds for s in met)
        rows.append(Row(name, won, len(members) - won, tokens, cost, seconds))
    return sorted(rows, key=lambda r: (-r.total, r.name))


def not_healed_reasons(problems: Iterable[Seen]) -> list[Reason]:
    """Why fresh repairs did not heal their problem, by category: an UNSURE fix's is "unsure",
    with why the tests cannot tell."""
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    for problem in problems:
        if problem.unsure:
            by_category["unsure"][problem["doubt"]] += 1
        elif not problem.healed:
            by_category[problem["category"] or "other"][problem["reason"]] += 1
    found = [
        Reason(name, sum(reasons.values()), reasons.most_common(1)[0][0])
        for name, reasons in by_category.items()
    ]
    return sorted(found, key=lambda r: (-r.count, r.category))


__all__ = ["Bug", "Reason", "Record", "Row", "Session", "Stats", "TestView", "compute", "test_id"]
