"""Beyond the tests: the fix the search found, weighed against the other fixes that pass too.

One trial (verify/behaviour.py) runs the problem's cases and regression set on the code as it is,
capturing the calls of the edited function, and then the original beside the fix and each other
fix of that function on those calls and on inputs derived from them. judge.py reads the table:
the fix to give, and whether the tests decide. A fix other than the one found is proved and
vetted as the found one was before it is given; one that fails either is left out and the rest
weighed again. Without trials (not Linux), or for a function the trial cannot call, only the
edit itself is read (a deleted raise is never HEALED outright).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from pytest_caretaker.apply.rewrite import unified_diff
from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import beyond
from pytest_caretaker.builtin.flags import Flag, guards, own_raises, silences
from pytest_caretaker.builtin.judge import Judgement, Weighed, decide, outside_errors, weigh
from pytest_caretaker.builtin.overfit import Finding
from pytest_caretaker.builtin.search import ALTERNATIVE_CASES, ALTERNATIVES_TRIED, Searcher
from pytest_caretaker.problem import Healed, Task
from pytest_caretaker.results import Candidate, Doubt, FileChange
from pytest_caretaker.syntax import parse
from pytest_caretaker.verify.protocol import Compared

#: Seconds the comparing trial may take at most: every case and neighbour once, with the
#: capture on, then a few hundred calls of a handful of variants.
COMPARE_LIMIT = 30.0

Examine = Callable[[Candidate], Finding]


def judged(
    repairer: Searcher,
    task: Task,
    found: Healed,
    fix: Mutant,
    others: Sequence[Mutant],
    examine: Examine,
    run_limit: float,
    raised: tuple[str, int] | None = None,
) -> Healed:
    """found as given, or another of the fixes (others: found after it, or kept aside before
    it) if the judge prefers it, with a Doubt when the tests cannot tell the fix given from
    another (or it only silences the symptom). raised: the line of code that raised."""
    source = repairer.files.get(fix.path)
    if source is None:
        return found
    text = source.text
    same = [m for m in others if (m.path, m.function) == (fix.path, fix.function)]
    known = _examined(found.candidate, same, text, source.encode, examine, raised)
    pool = [fix, *(m for m in same if m in known)]
    table = _table(repairer, task, pool, text)
    if not table:
        said = silences(fix, text)
        if not said:
            return found
        doubt = Doubt(f"{fix.description} on line {fix.line} {said}")
        return replace(found, candidate=replace(found.candidate, doubt=doubt))
    proved: dict[Mutant, Healed] = {fix: found}
    while True:
        weighed = weigh(pool, text, table, known)
        judgement = decide(weighed, table, outside_errors(table, own_raises(text, fix.function)))
        chosen = judgement.chosen.mutant
        if chosen not in proved:
            healed = _proved(repairer, task, found, chosen, run_limit)
            if healed is None:
                pool.remove(chosen)
                table = _without(table, pool, weighed)
                continue
            proved[chosen] = healed
        task.log.add("Beyond the tests", _weighing(weighed, judgement, table))
        return _given(proved[chosen], judgement, text, source.encode, table, len(pool) - 1)


def _examined(
    like: Candidate,
    mutants: Sequence[Mutant],
    text: str,
    encode: Callable[[str], bytes],
    examine: Examine,
    raised: tuple[str, int] | None,
) -> dict[Mutant, tuple[Flag, ...]]:
    """Each other fix not refused by the probes (overfit.py), with what they hold against it:
    a docstring example it makes false, or the line that raised no longer reached, unless the
    edit is that line's own guard (an inverted guard is healed by its condition)."""
    kept: dict[Mutant, tuple[Flag, ...]] = {}
    for mutant in mutants:
        candidate = _candidate(like, mutant, text, encode)
        finding = examine(candidate) if candidate is not None else Finding()
        if finding.refused:
            continue
        said = finding.contradicts
        if finding.skipped and not (raised and guards(text, mutant, raised)):
            said = finding.skipped
        kept[mutant] = (Flag(f"heals, but {said}"),) if said else ()
    return kept


def weighed_alone(repairer: Searcher, task: Task, healed: Healed) -> Healed:
    """A fix from elsewhere (a model's) weighed beyond the tests on its own: flagged, it is
    UNSURE; else it says what it was run on. Only a fix that replaces one function's code can
    be run beside the original; anything else is given as it is."""
    candidate = healed.candidate
    if len(candidate.changes) != 1 or [e.kind for e in candidate.edits] != ["replace"]:
        return healed
    change, qualname = candidate.changes[0], candidate.edits[0].qualname
    source = repairer.files.get(change.path)
    try:
        before, after = change.before.decode(), change.after.decode()
    except UnicodeDecodeError:
        return healed
    if source is None or source.text != before:
        return healed
    old, new = before.splitlines(), after.splitlines()
    line = next((i + 1 for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), 1)
    fix = Mutant(change.path, qualname, line, "replace", "the fix", 1.0, 0, len(before), after)
    table = _table(repairer, task, [fix], before)
    if not table:
        return healed
    judgement = decide(weigh([fix], before, table), table)
    return _given(healed, judgement, before, source.encode, table, None)


def _table(repairer: Searcher, task: Task, pool: Sequence[Mutant], text: str) -> list[Compared]:
    trials = repairer.trials
    first = pool[0]
    source = repairer.files.get(first.path)
    definition = source.find(first.function) if source is not None else None
    if trials is None or definition is None or not all(m.in_place for m in pool):
        return []
    problem = task.problem
    cases = problem.ids[:ALTERNATIVE_CASES]  # the first stand for the rest (a bug of 240 cases)
    trial = trials.compare(
        [*cases, *problem.regression],
        cases,
        min(COMPARE_LIMIT, repairer.runner.timeout),
        (str(repairer.runner.root / first.path), first.function, definition.start),
        text,
        [m.apply(text) for m in pool],
    )
    if trial is None or not trial.passed:
        return []
    return list(trial.behaviour)


def _without(
    table: Sequence[Compared], pool: Sequence[Mutant], weighed: Sequence[Weighed]
) -> list[Compared]:
    """The table with the columns of the fixes no longer in pool left out (the original's and
    the remaining fixes', in pool's order)."""
    index = {w.mutant: w.index for w in weighed}
    keep = [0, *(index[m] for m in pool)]
    kept: list[Compared] = []
    for compared in table:
        results = [compared["results"][i] for i in keep]
        kept.append({**compared, "results": results})
    return kept


def _proved(
    repairer: Searcher, task: Task, found: Healed, mutant: Mutant, run_limit: float
) -> Healed | None:
    """The other fix, proved by the problem's check as the one found was; None when it fails."""
    attempted = repairer.attempt(mutant, task.problem, None, run_limit)
    if attempted is None:
        return None
    candidate, verdict = attempted
    if not set(task.problem.ids[1:]) <= verdict.passed:
        return None
    return replace(found, candidate=candidate, verdict=verdict)


def _weighing(weighed: Sequence[Weighed], judgement: Judgement, table: Sequence[Compared]) -> str:
    """For the transcript: each fix weighed, what it changes and what is held against it."""
    beyond_failing = sum(1 for c in table if c["origin"] != "failing")
    lines = [
        f"Run beside the original on {len(table)} inputs, {beyond_failing} of them beyond the "
        "failing tests' calls:"
    ]
    for w in weighed:
        held = "; ".join(flag.said for flag in w.flags) or "nothing held against it"
        lines.append(
            f"- {w.mutant.description} on line {w.mutant.line}: changes what {w.changed} of "
            f"them give; {held}"
        )
    verdict = judgement.doubt.reason if judgement.doubt else "no other fix does otherwise"
    taken = f"{judgement.chosen.mutant.description} on line {judgement.chosen.mutant.line}"
    lines.append(f"Given: {taken} ({'UNSURE: ' if judgement.doubt else ''}{verdict}).")
    return "\n".join(lines)


def _given(
    healed: Healed,
    judgement: Judgement,
    text: str,
    encode: Callable[[str], bytes],
    table: Sequence[Compared],
    others: int | None,
) -> Healed:
    """others: how many other fixes were weighed (None: none was looked for, a model's fix)."""
    candidate = healed.candidate
    if judgement.doubt is None:
        beyond_failing = sum(1 for c in table if c["origin"] != "failing")
        agree = (
            ""
            if others is None
            else ", and every other fix found that passes them does the same on each, or is "
            "passed over"
            if others
            else f", and none of the next {ALTERNATIVES_TRIED} edits tried passes them too"
        )
        said = (
            f"Beyond the failing tests it was run beside the original on {beyond_failing} "
            f"inputs (the tests' own calls and inputs derived from them): it changes what "
            f"{judgement.chosen.changed} of them give{agree}.{judgement.note}"
        )
        explanation = beyond(candidate.explanation, said, sure=True)
        return replace(healed, candidate=replace(candidate, explanation=explanation))
    doubt = judgement.doubt
    candidate = replace(
        candidate,
        explanation=beyond(
            candidate.explanation,
            "The tests cannot tell it is the right one: read why below.",
            sure=False,
        ),
    )
    rival = judgement.rival
    alternative = ""
    if rival is not None:
        other = _candidate(candidate, rival.mutant, text, encode)
        if other is not None:
            alternative = unified_diff(other.changes[0]).decode("utf-8", "replace")
    test = pasteable(healed.candidate.edits[0].path, judgement.chosen.mutant.function, doubt)
    doubt = replace(doubt, alternative=alternative, test=test)
    return replace(healed, candidate=replace(candidate, doubt=doubt))


def _candidate(
    like: Candidate, mutant: Mutant, text: str, encode: Callable[[str], bytes]
) -> Candidate | None:
    """mutant as a candidate of one change (for a probe or a diff; not proved)."""
    try:
        before, after = encode(text), encode(mutant.apply(text))
    except UnicodeEncodeError:
        return None
    edit = replace(like.edits[0], qualname=mutant.function)
    return Candidate((edit,), (FileChange(mutant.path, before, after),))


def pasteable(path: str, qualname: str, doubt: Doubt) -> str:
    """A pytest test that pins the separating call to what the fix given does there (the
    reader decides which is right); empty when the call is not Python that can be pasted (an
    object's repr, a method)."""
    if not doubt.call or "." in qualname or not doubt.outcome:
        return ""
    try:
        parse(doubt.call)
    except (SyntaxError, ValueError):
        return ""
    module = ".".join(PurePosixPath(path).with_suffix("").parts)
    module = module.removeprefix("src.")
    lines = []
    if "datetime." in doubt.call:
        lines.append("import datetime")
    if doubt.outcome.startswith("raises "):
        lines.append("import pytest")
    lines += [f"from {module} import {qualname}", "", "", f"def test_{qualname}_separating():"]
    if doubt.outcome.startswith("raises "):
        error = doubt.outcome.removeprefix("raises ")
        lines += [f"    with pytest.raises({error}):", f"        {doubt.call}"]
    else:
        value = doubt.outcome.removeprefix("returns ")
        lines.append(f"    assert {doubt.call} == {value}  # the other: {doubt.other}")
    return "\n".join(lines) + "\n"
