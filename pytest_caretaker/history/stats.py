"""The numbers of the report, from the history's records: plain values, tested on a fixed
history file, that page.py only lays out.

A record is counted as healed when its outcome is anything but "not healed": a remembered fix
(re-verified) and a fix shared by one root cause heal their test as much as a repair does.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_caretaker.history.problems import FROM_CACHE, NOT_HEALED

Record = dict[str, Any]
TOP = 5  # rows of the slowest and the most expensive heals
#: How remembered fixes are named among the repairers: their tokens were spent long ago.
REMEMBERED = "remembered fixes"


def text(record: Record, key: str) -> str:
    value = record.get(key, "")
    return value if isinstance(value, str) else str(value)


def number(record: Record, key: str) -> float:
    value = record.get(key, 0)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def healed(record: Record) -> bool:
    return text(record, "outcome") not in (NOT_HEALED, "")


def test_id(record: Record) -> str:
    tests = record.get("tests") or [record.get("command", "")]
    return ", ".join(str(t) for t in tests)


@dataclass(frozen=True)
class Row:
    """One group of records: a day, a repairer, an exception type."""

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


def row(name: str, records: Sequence[Record]) -> Row:
    won = sum(1 for r in records if healed(r))
    return Row(
        name,
        won,
        len(records) - won,
        int(sum(number(r, "tokens") for r in records)),
        sum(number(r, "cost") for r in records),
        statistics.median(number(r, "seconds") for r in records) if records else 0.0,
    )


def group(records: Iterable[Record], key: Callable[[Record], str]) -> list[Row]:
    """Rows by key, the biggest group first (ties by name)."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    rows = [row(name, members) for name, members in groups.items()]
    return sorted(rows, key=lambda r: (-r.total, r.name))


def repairer_of(record: Record) -> str:
    if text(record, "outcome") == FROM_CACHE:
        return REMEMBERED
    return text(record, "repairer") or "(none)"


@dataclass(frozen=True)
class Reason:
    category: str
    count: int
    example: str  # the most frequent reason of the category


@dataclass(frozen=True)
class Stats:
    records: list[Record]  # oldest first
    totals: Row
    sessions: int
    first: str
    last: str
    by_day: list[Row]
    by_repairer: list[Row]
    by_exception: list[Row]
    reasons: list[Reason] = field(default_factory=list)
    slowest: list[Record] = field(default_factory=list)
    costliest: list[Record] = field(default_factory=list)


def compute(records: Iterable[Record], since: str = "") -> Stats:
    """The report's numbers; since (an ISO date or UTC time) drops the records before it."""
    kept = sorted((r for r in records if text(r, "time") >= since), key=lambda r: text(r, "time"))
    won = [r for r in kept if healed(r)]
    times = [text(r, "time") for r in kept if text(r, "time")]
    return Stats(
        records=kept,
        totals=row("all", kept),
        sessions=len({text(r, "session") for r in kept}),
        first=min(times, default=""),
        last=max(times, default=""),
        by_day=sorted(group(kept, lambda r: text(r, "time")[:10]), key=lambda r: r.name),
        by_repairer=group(kept, repairer_of),
        by_exception=group(kept, lambda r: text(r, "exception") or "(unknown)"),
        reasons=not_healed_reasons(kept),
        slowest=sorted(won, key=lambda r: -number(r, "seconds"))[:TOP],
        costliest=[r for r in sorted(won, key=lambda r: -number(r, "cost")) if number(r, "cost")][
            :TOP
        ],
    )


def not_healed_reasons(records: Iterable[Record]) -> list[Reason]:
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        if not healed(record):
            by_category[text(record, "category") or "other"][text(record, "reason")] += 1
    found = [
        Reason(name, sum(reasons.values()), reasons.most_common(1)[0][0])
        for name, reasons in by_category.items()
    ]
    return sorted(found, key=lambda r: (-r.count, r.category))
