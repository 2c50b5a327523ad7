"""Judge: which of the fixes that pass the tests a careful reviewer would take, or UNSURE.

The tests are often weaker than the code, so the first edit that passes them may be wrong. The
search (search.py) goes on past the first fix for others that pass every case of the problem;
a trial then runs the original and each of them beside it on the calls the tests made and on
inputs derived from those (verify/behaviour.py). From that table, per fix:

- **What it silences**: a deleted ``raise`` or ``assert``, a guard's body emptied to ``pass``
  (read from the edit itself); a ``raise`` of the original that it never reaches on any input
  where the original did; an exception the original never raises (neither itself nor on any
  input tried), on an input where the original returned (``median([])`` now an
  ``IndexError``); a type the original never returned. Each is a flag: a flagged fix ranks
  after every fix without one, and a flagged fix is never HEALED outright.
- **How much it changes** beyond the failing calls: the inputs where it does not do what the
  original did. The least disruptive ranks first.

The fix ranked first is given. When another unflagged fix behaves differently on some input,
the tests cannot tell the two apart: the result is UNSURE, with that input and what each fix
gives on it. Only the flags (evidence: the edit, the types, the original's own raises) break a
tie; how much a fix changes only orders the two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.flags import Flag, differ, flags, outcome, own_raises
from pytest_caretaker.results import Doubt
from pytest_caretaker.verify.protocol import Compared, Result


@dataclass(frozen=True)
class Weighed:
    """One fix that passes the tests, with what the table says of it (index: its variant)."""

    mutant: Mutant
    index: int
    flags: tuple[Flag, ...]
    changed: int  # inputs beyond the failing calls where it does not do what the original did


@dataclass(frozen=True)
class Judgement:
    chosen: Weighed
    doubt: Doubt | None
    note: str = ""  # for a HEALED: what was passed over, and why
    rival: Weighed | None = None  # the other fix an UNSURE names


def weigh(
    mutants: Sequence[Mutant],
    text: str,
    table: Sequence[Compared],
    known: Mapping[Mutant, tuple[Flag, ...]] | None = None,
) -> list[Weighed]:
    """Each mutant (variant i + 1 of the table; 0 is the original) with its flags (known:
    those the probes found) and changes, best first: unflagged before flagged, then the least
    changes, then the search's order."""
    raised = own_raises(text, mutants[0].function) if mutants else frozenset()
    known = known or {}
    weighed = [
        Weighed(
            mutant,
            index + 1,
            known.get(mutant, ()) + flags(mutant, text, table, index + 1, raised),
            _changed(table, index + 1),
        )
        for index, mutant in enumerate(mutants)
    ]
    return sorted(weighed, key=lambda w: (bool(w.flags), w.changed, w.index))


def decide(
    weighed: Sequence[Weighed], table: Sequence[Compared], outside: frozenset[str] = frozenset()
) -> Judgement:
    """The fix to give, and why the tests do not decide, when they do not. outside: what the
    original raises, not by a raise of its own, on some input (outside_errors)."""
    best = weighed[0]
    rivals = [
        w for w in weighed[1:] if not w.flags and separating(table, best, w, outside) is not None
    ]
    if best.flags:
        flag = best.flags[0]
        rival = rivals[0] if rivals else None
        return Judgement(
            best,
            Doubt(
                f"{best.mutant.description} on line {best.mutant.line} {flag.said}",
                flag.call,
                flag.outcome,
                flag.original,
            ),
            rival=rival,
        )
    if rivals:
        rival = rivals[0]
        found = separating(table, best, rival, outside)
        assert found is not None
        compared, ours, theirs = found
        return Judgement(
            best,
            Doubt(
                f"another fix passes them too: {_said(rival)}",
                compared["call"],
                outcome(ours),
                outcome(theirs),
            ),
            rival=rival,
        )
    over = sorted((w for w in weighed[1:] if w.flags), key=lambda w: w.index)
    # The first passed over in the search's order (a fix kept aside first): the one most like it.
    note = f" Passed over: {_said(over[0])} {over[0].flags[0].said}." if over else ""
    return Judgement(best, None, note)


def separating(
    table: Sequence[Compared], a: Weighed, b: Weighed, outside: frozenset[str] = frozenset()
) -> tuple[Compared, Result, Result] | None:
    """The input on which a and b do different things (neither running out of time, nor
    raising an error of outside): one where both return first; None when they agree."""
    found = [
        (compared, ours, theirs)
        for compared in table
        if differ(ours := compared["results"][a.index], theirs := compared["results"][b.index])
        and not {r["type"] for r in (ours, theirs) if r["kind"] == "raise"} & outside
    ]
    if not found:
        return None
    found.sort(key=lambda f: f[1]["kind"] != "return" or f[2]["kind"] != "return")
    return found[0]


def outside_errors(table: Sequence[Compared], raised: frozenset[str]) -> frozenset[str]:
    """The errors the original raises on some input, not by a raise of its own: such an
    input lies outside what the function takes (a scale with no suffix: ``KeyError``), and
    two fixes that differ there only are not told apart by it."""
    return (
        frozenset(c["results"][0]["type"] for c in table if c["results"][0]["kind"] == "raise")
        - raised
    )


def _changed(table: Sequence[Compared], index: int) -> int:
    return sum(
        1
        for c in table
        if c["origin"] != "failing" and differ(c["results"][0], c["results"][index])
    )


def _said(weighed: Weighed) -> str:
    return f"{weighed.mutant.description} on line {weighed.mutant.line}"
