"""Select: turn the verified results of a session into fixes that hold together.

Several tests healed by the same change are one fix. Fixes combine line by line (two fixes of one
function that change different lines are both kept); a fix that changes lines another fix changed
differently is left out. Then every kept fix is verified together once, since a pair of fixes that
each pass alone can still break each other; when they do, fixes are added back one at a time and
the one that breaks the others is left out, with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pytest_caretaker.apply.rewrite import merge, unified_diff
from pytest_caretaker.project.neighbours import module_of
from pytest_caretaker.results import Failure, FileChange, Fix, HealResult
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.patience import patient_run
from pytest_caretaker.verify.runner import Runner


@dataclass(frozen=True)
class Dropped:
    """A fix left out of the session's fixes (here, where fixes are chosen)."""

    fix: Fix
    reason: str  # one line: why this fix is not in the patch and not written


def group(results: Sequence[HealResult]) -> list[Fix]:
    """The healed results as fixes, equal changes one fix; the fix that heals the most tests
    first (it is kept when two clash), then by first test id."""
    fixes: dict[tuple[tuple[str, bytes], ...], list[HealResult]] = {}
    for result in sorted(results, key=lambda r: r.nodeid):
        if result.healed and result.changes:
            key = tuple(sorted((c.path, c.after) for c in result.changes))
            fixes.setdefault(key, []).append(result)
    grouped = [Fix(tuple(members)) for members in fixes.values()]
    return sorted(grouped, key=lambda fix: (-len(fix.results), fix.first.nodeid))


def combined(fixes: Sequence[Fix]) -> dict[str, FileChange] | None:
    """Each file's original and combined bytes under all fixes; None when they do not combine."""
    before: dict[str, bytes] = {}
    afters: dict[str, list[bytes]] = {}
    for fix in fixes:
        for applied in fix.changes:
            before.setdefault(applied.path, applied.before)
            afters.setdefault(applied.path, []).append(applied.after)
    files: dict[str, FileChange] = {}
    for path in sorted(afters):
        merged = merge(path, before[path], afters[path])
        if merged is None:
            return None
        files[path] = FileChange(path, before[path], merged)
    return files


def compatible(fixes: Sequence[Fix]) -> tuple[list[Fix], list[Dropped]]:
    """The fixes whose changes combine, in order; one that clashes with earlier ones is left out."""
    kept: list[Fix] = []
    dropped: list[Dropped] = []
    for fix in fixes:
        if combined([*kept, fix]) is not None:
            kept.append(fix)
            continue
        clash = next(
            (other for other in kept if combined([other, fix]) is None), kept[0] if kept else fix
        )
        dropped.append(
            Dropped(fix, f"it changes the same lines as the fix for {clash.first.nodeid}")
        )
    return kept, dropped


def together(
    fixes: Sequence[Fix], runner: Runner, regression: Sequence[str]
) -> tuple[list[Fix], list[Dropped]]:
    """The fixes that pass all their tests and the whole regression set when applied together.

    One run when they do (the usual case; none for a single fix whose proofs saw all of it);
    otherwise one run per fix, adding them back in order. Each fix is judged against the whole
    set, the first too: its own proof ran only its own problem's neighbours.
    """
    kept, dropped = compatible(fixes)
    if not kept or (len(kept) == 1 and _proved(kept[0], regression)):
        return kept, dropped
    if _verdict(kept, runner, regression) is None:
        return kept, dropped
    accepted: list[Fix] = []
    for fix in kept:
        reason = _verdict([*accepted, fix], runner, regression)
        if reason is None:
            accepted.append(fix)
        elif accepted:
            others = ", ".join(other.first.nodeid for other in accepted)
            dropped.append(Dropped(fix, f"together with the fix for {others}: {reason}"))
        else:
            dropped.append(Dropped(fix, reason))
    return accepted, dropped


def _proved(fix: Fix, regression: Sequence[str]) -> bool:
    """Whether the checks that proved the fix (for each problem it heals: the same changes)
    already saw its tests and the regression set pass."""
    seen = {n for r in fix.results if r.candidate is not None for n in r.candidate.passed}
    return {*fix.nodeids, *regression} <= seen


def _verdict(fixes: Sequence[Fix], runner: Runner, regression: Sequence[str]) -> str | None:
    """Why these fixes fail together, or None when every test they heal and regression pass."""
    files = combined(fixes)
    if files is None:
        return "the changes do not combine"
    healed = [nodeid for fix in fixes for nodeid in fix.nodeids]
    neighbours = [nodeid for nodeid in regression if nodeid not in healed]
    run = patient_run(runner, [*healed, *neighbours], {path: a.after for path, a in files.items()})
    verdict = judge(run, healed, neighbours)
    return None if verdict.ok else verdict.reason


def also_healed(
    fixes: Sequence[Fix], runner: Runner, results: Sequence[HealResult], failed: Sequence[Failure]
) -> list[HealResult]:
    """results, with each test that was not healed but passes under the patch reported healed
    by the fix that heals it (its own repair failed, or never began: the patch still heals it).

    The session's failing tests run together, in the order they failed (failed's): a test that
    needs what an earlier one left behind (a doctest whose namespace a test's autouse fixture
    fills) is judged as the session ran it. One run under the whole patch, and, when it heals
    some and the patch has several fixes, one run per fix to tell which — of the failing tests
    of those tests' modules only, the fixes found for tests of those modules first, until each
    has its fix (a session of many fixes and a few hanging tests paid every fix a run of them
    all). Nothing runs when all were healed.
    """
    missing = [result.nodeid for result in results if not result.healed]
    if not fixes or not missing:
        return list(results)
    order = list(dict.fromkeys([*(failure.nodeid for failure in failed), *missing]))
    healed = _passing(fixes, runner, order, missing)
    owner: dict[str, Fix] = {}
    modules = {module_of(nodeid) for nodeid in healed}
    nearby = [nodeid for nodeid in order if module_of(nodeid) in modules]
    mine = sorted(fixes, key=lambda fix: not modules & {module_of(n) for n in fix.nodeids})
    for fix in mine if len(fixes) > 1 else ():
        left = [n for n in healed if n not in owner]
        if not left:
            break
        for nodeid in _passing([fix], runner, nearby, left):
            owner[nodeid] = fix
    return [
        _healed_by(result, owner.get(result.nodeid, fixes[0]))
        if result.nodeid in healed
        else result
        for result in results
    ]


def _passing(
    fixes: Sequence[Fix], runner: Runner, run: Sequence[str], judged: Sequence[str]
) -> list[str]:
    """Those of judged that pass when run (which holds them) runs under fixes."""
    files = combined(fixes) or {}
    changes = {path: change.after for path, change in files.items()}
    outcomes = patient_run(runner, run, changes, expected=judged).outcomes
    return [n for n in judged if (o := outcomes.get(n)) is not None and o.outcome == "passed"]


def _healed_by(result: HealResult, fix: Fix) -> HealResult:
    return replace(
        fix.first,
        nodeid=result.nodeid,
        spend=result.spend,
        via="shared",
        shared_with=fix.first.nodeid,
        fallbacks=(),
    )


def patch(fixes: Sequence[Fix]) -> bytes:
    """The combined diff of the fixes, which ``git apply`` accepts."""
    files = combined(fixes) or {}
    return b"".join(unified_diff(applied) for applied in files.values())
