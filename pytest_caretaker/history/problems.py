"""A session's results as problems, one per root cause: the cases one fix heals (the case whose
repair found it first, the *lead*), or the cases one repair did not heal. The history records
each case with its problem's lead, last-run.json (ci/problems.py) each problem; both read the
outcome, the spend, the fix and its commit from here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_caretaker.results import HealResult, Spend, Written

#: The outcomes a case or a problem has; healed, from cache and shared count as healed. UNSURE
#: is a fix the tests cannot tell from another (results.Doubt): in the patch, not a heal.
HEALED, NOT_HEALED, FROM_CACHE, SHARED = "healed", "not healed", "from cache", "shared"
UNSURE = "unsure"
#: How cluster.py says a case was not healed by the repair of its problem's first case.
_ONE_CAUSE = re.compile(r" \(one root cause with (.+), repaired once for all\)$")


def outcome_of(result: HealResult) -> str:
    """A case's outcome: healed, from cache (a remembered fix, verified again), shared (the fix
    found for another case of its problem), unsure (however it came: its doubt is the fix's)
    or not healed."""
    if not result.healed:
        return NOT_HEALED
    if result.unsure:
        return UNSURE
    if result.via == "cache":
        return FROM_CACHE
    if result.via == "shared" or result.shared_with:
        return SHARED
    return HEALED


@dataclass(frozen=True)
class Problem:
    """One root cause's results: the lead (whose repair speaks for all), then the others."""

    results: tuple[HealResult, ...]

    @property
    def lead(self) -> HealResult:
        return self.results[0]

    @property
    def outcome(self) -> str:
        """healed, from cache (a remembered fix, verified again), unsure or not healed."""
        lead = self.lead
        if not lead.healed:
            return NOT_HEALED
        if lead.unsure:
            return UNSURE
        return FROM_CACHE if lead.via == "cache" else HEALED

    @property
    def reason(self) -> str:
        return _ONE_CAUSE.sub("", self.lead.reason)

    @property
    def spend(self) -> Spend:
        every = [result.spend for result in self.results]
        return Spend(
            rounds=sum(s.rounds for s in every),
            candidates=sum(s.candidates for s in every),
            prompt_tokens=sum(s.prompt_tokens for s in every),
            completion_tokens=sum(s.completion_tokens for s in every),
            cost=sum(s.cost for s in every),
            seconds=sum(s.seconds for s in every),
        )

    def written(self, written: Sequence[Written]) -> Written | None:
        """What --heal-write did with the problem's fix; None when it was not to be written."""
        ids = {result.nodeid for result in self.results}
        return next((w for w in written if ids & set(w.fix.nodeids)), None)


def problems(results: Iterable[HealResult]) -> list[Problem]:
    """The results grouped by root cause, ordered by their leads' ids."""
    by_id = {result.nodeid: result for result in results}
    groups: dict[str, list[HealResult]] = {}
    for result in by_id.values():
        groups.setdefault(_lead_of(result, by_id), []).append(result)
    found = []
    for lead, members in sorted(groups.items()):
        members.sort(key=lambda r: (r.nodeid != lead, r.nodeid))
        found.append(Problem(tuple(members)))
    return found


def _lead_of(result: HealResult, by_id: dict[str, HealResult]) -> str:
    """The id of the case whose repair decided this one's outcome (followed to the first)."""
    seen = {result.nodeid}
    while True:
        lead = _decided_by(result)
        if not lead or lead in seen or lead not in by_id:
            return result.nodeid
        seen.add(lead)
        result = by_id[lead]


def _decided_by(result: HealResult) -> str:
    if result.healed:
        return result.shared_with
    match = _ONE_CAUSE.search(result.reason)
    return match.group(1) if match else ""


def diff(result: HealResult) -> str:
    """The fix of a healed result as a diff that ``git apply`` accepts ("" when not healed)."""
    if not result.healed:
        return ""
    from pytest_caretaker.apply.rewrite import unified_diff  # libcst: only for a fix

    return b"".join(unified_diff(change) for change in result.changes).decode("utf-8", "replace")


def spent(spend: Spend) -> dict[str, Any]:
    """What a repair cost, as the history and last-run.json hold it."""
    return {
        "attempts": spend.rounds,
        "candidates": spend.candidates,
        "prompt_tokens": spend.prompt_tokens,
        "completion_tokens": spend.completion_tokens,
        "tokens": spend.tokens,
        "cost": round(spend.cost, 6),
        "seconds": round(spend.seconds, 3),
    }
