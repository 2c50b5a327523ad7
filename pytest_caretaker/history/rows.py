"""The history's records read back as problems: one ``Seen`` per root cause per session, its
tests grouped under the case whose repair spoke for them all (the lead).

A record of an older caretaker has no ``problem`` key: its lead is then the case whose fix it
shares, or the one its reason names ("one root cause with …"), or itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pytest_caretaker.history.problems import FROM_CACHE, HEALED, NOT_HEALED, UNSURE

Record = dict[str, Any]
#: What a problem is called, by the front end that met it: (one, many).
KINDS = {
    "pytest": ("failing test", "failing tests"),
    "run": ("caretaker run finding", "caretaker run findings"),
    "runtime": ("runtime crash", "runtime crashes"),
}
_ONE_CAUSE = re.compile(r"\(one root cause with (.+), repaired once for all\)$")


def text(record: Record, key: str) -> str:
    value = record.get(key, "")
    return value if isinstance(value, str) else str(value)


def number(record: Record, key: str) -> float:
    value = record.get(key, 0)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def test_id(record: Record) -> str:
    tests = record.get("tests") or [record.get("command", "")]
    return ", ".join(str(t) for t in tests)


def lead_of(record: Record) -> str:
    """The test id of the case whose repair decided the record's outcome."""
    said = _ONE_CAUSE.search(text(record, "reason"))
    return (
        text(record, "problem")
        or text(record, "shared_with")
        or (said.group(1) if said else test_id(record))
    )


def kind(source: str, count: int = 1) -> str:
    one, many = KINDS.get(source, ("failing test", "failing tests"))
    return one if count == 1 else many


@dataclass(frozen=True, eq=False)  # each is itself: records are dicts, and two may be equal
class Seen:
    """One problem in one session: its records, the lead's first."""

    records: tuple[Record, ...]

    @property
    def lead(self) -> Record:
        return self.records[0]

    def __getitem__(self, key: str) -> str:
        return text(self.lead, key)

    @property
    def key(self) -> tuple[str, str]:
        """The bug across sessions: the front end, and the id of the lead."""
        return self["source"] or "pytest", test_id(self.lead)

    @property
    def tests(self) -> list[str]:
        return [test_id(record) for record in self.records]

    @property
    def outcome(self) -> str:
        """healed (a repair of this session), from cache (a remembered fix), unsure (a fix the
        tests cannot tell from another) or not healed."""
        said = self["outcome"]
        return said if said in (FROM_CACHE, NOT_HEALED, UNSURE) else HEALED

    @property
    def healed(self) -> bool:
        """A fix was found that the tests prove: an UNSURE one is not (see unsure)."""
        return self.outcome not in (NOT_HEALED, UNSURE)

    @property
    def unsure(self) -> bool:
        return self.outcome == UNSURE

    @property
    def fresh(self) -> bool:
        """Repaired in its session, not replayed from the cache of an earlier one."""
        return self.outcome != FROM_CACHE

    def total(self, key: str) -> float:
        """tokens or cost: spent on the problem, over its records."""
        return sum(number(record, key) for record in self.records)

    @property
    def seconds(self) -> float:
        """The problem's repair took this long: the lead's clock (the chain's, from the first
        repairer to the verdict); the cases it heals too cost nothing more."""
        return number(self.lead, "seconds")

    @property
    def tries(self) -> int:
        return int(number(self.lead, "attempts") or number(self.lead, "candidates"))

    @property
    def commit(self) -> tuple[str, str]:
        """The short hash and the subject of the commit of the problem's fix, if any."""
        for record in self.records:
            if text(record, "commit"):
                return text(record, "commit")[:7], text(record, "subject")
        return "", ""

    @property
    def written(self) -> str:
        """What --heal-write made of the fix when it wrote it but did not commit it (the
        user's edits in its file, --heal-no-commit…), in the report's words; "" otherwise."""
        for record in self.records:
            if text(record, "written") == "written":
                why = text(record, "uncommitted")
                return f"written, not committed ({why})" if why else "written, not committed"
        return ""

    @property
    def tried(self) -> list[tuple[str, bool]]:
        """Each repairer asked in turn, and whether it healed the problem; none when the fix was
        remembered, or when no repairer was asked (nothing it may edit, not attempted)."""
        if not self.fresh:
            return []
        if self.healed or self.unsure:  # the last one asked found the fix: unsure is no heal
            failed = [line.split(": ", 1)[0] for line in self.lead.get("fallbacks") or ()]
            return [(name, False) for name in failed] + [(self["repairer"] or "?", self.healed)]
        parts = self["reason"].split("; then ")
        names = [p.split(": ", 1)[0] for p in parts] if len(parts) > 1 else [self["repairer"]]
        return [(name, False) for name in names if name]


def seen(records: Iterable[Record]) -> list[Seen]:
    """The records as problems, in the order their sessions were recorded."""
    groups: dict[tuple[str, str], list[Record]] = {}
    for record in records:
        groups.setdefault((text(record, "session"), lead_of(record)), []).append(record)
    found = []
    for (_, lead), members in groups.items():
        members.sort(key=lambda r: test_id(r) != lead)
        found.append(Seen(tuple(members)))
    return sorted(found, key=lambda s: (s["time"], s["session"], s.key))
