"""A session's results as problems, one per root cause: the cases one fix heals (the case whose
repair found it first), or the cases one repair did not heal; each as the JSON object
last-run.json holds (last-run.schema.json's ``problem``), every text in it redacted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_caretaker.ci.texts import Texts
from pytest_caretaker.history.reasons import category
from pytest_caretaker.history.record import FROM_CACHE, HEALED, NOT_HEALED, outcome_of
from pytest_caretaker.results import HealResult, Spend, Written
from pytest_caretaker.write.message import subject

#: How cluster.py says a case was not healed by the repair of its problem's first case.
_ONE_CAUSE = re.compile(r" \(one root cause with (.+), repaired once for all\)$")


@dataclass(frozen=True)
class Problem:
    """One root cause's results: the lead (whose repair speaks for all), then the others."""

    results: tuple[HealResult, ...]

    @property
    def lead(self) -> HealResult:
        return self.results[0]

    @property
    def outcome(self) -> str:
        """healed, from cache (a remembered fix, verified again) or not healed."""
        lead = self.lead
        if not lead.healed:
            return NOT_HEALED
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


def hunks(text: str) -> list[dict[str, object]]:
    """A diff's files, each with its hunks (from ``@@`` to the next one)."""
    files: list[dict[str, object]] = []
    for part in re.split(r"^(?=diff --git )", text, flags=re.M):
        lines = part.splitlines(keepends=True)
        if not lines:
            continue
        path = lines[2][len("+++ b/") :].rstrip("\n") if len(lines) > 2 else ""
        found: list[str] = []
        for line in lines[3:]:
            if line.startswith("@@") or not found:
                found.append("")
            found[-1] += line
        files.append({"path": path, "hunks": found})
    return files


def record(problem: Problem, written: Sequence[Written], text: Texts) -> dict[str, Any]:
    """The problem as last-run.json holds it."""
    lead, spend = problem.lead, problem.spend
    patch = text(diff(lead), None)
    return {
        "outcome": problem.outcome,
        "tests": [{"id": text(r.nodeid, None), "outcome": outcome_of(r)} for r in problem.results],
        "reason": text(problem.reason),
        "category": "" if lead.healed else category(problem.reason),
        "repairer": text(lead.repairer),
        "fallbacks": [text(line) for line in lead.fallbacks],
        "explanation": text(lead.explanation),
        "notices": [text(notice) for notice in lead.notices],
        "patched": [text(edit.ref) for edit in lead.edits if edit.kind != "import"],
        "diff": patch,
        "files": hunks(patch),
        "commit": commit(problem, written, text),
        "attempts": spend.rounds,
        "candidates": spend.candidates,
        "prompt_tokens": spend.prompt_tokens,
        "completion_tokens": spend.completion_tokens,
        "tokens": spend.tokens,
        "cost": round(spend.cost, 6),
        "seconds": round(spend.seconds, 3),
    }


def commit(problem: Problem, written: Sequence[Written], text: Texts) -> dict[str, str] | None:
    """What --heal-write did with the problem's fix; None when it was not to be written."""
    ids = {result.nodeid for result in problem.results}
    done = next((w for w in written if ids & set(w.fix.nodeids)), None)
    if done is None:
        return None
    title = subject(done.fix, text.redact) if done.commit else ""
    return {
        "state": done.state,
        "sha": done.commit,
        "subject": text(title),
        "detail": text(done.detail),
    }
