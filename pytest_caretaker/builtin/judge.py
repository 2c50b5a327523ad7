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

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import PAIR
from pytest_caretaker.results import Doubt
from pytest_caretaker.syntax import parse
from pytest_caretaker.verify.protocol import Compared, Result


@dataclass(frozen=True)
class Flag:
    """Why a fix looks like silencing the symptom, and the input that shows it."""

    said: str  # "deletes `raise ValueError(...)`", "raises IndexError on `median([])` ..."
    call: str = ""
    outcome: str = ""  # what the fix does on call
    original: str = ""  # what the original does on call


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


def weigh(mutants: Sequence[Mutant], text: str, table: Sequence[Compared]) -> list[Weighed]:
    """Each mutant (variant i + 1 of the table; 0 is the original) with its flags and changes,
    best first: unflagged before flagged, then the least changes, then the search's order."""
    raised = own_raises(text, mutants[0].function) if mutants else frozenset()
    weighed = [
        Weighed(
            mutant,
            index + 1,
            _flags(mutant, text, table, index + 1, raised),
            _changed(table, index + 1),
        )
        for index, mutant in enumerate(mutants)
    ]
    return sorted(weighed, key=lambda w: (bool(w.flags), w.changed, w.index))


def decide(weighed: Sequence[Weighed], table: Sequence[Compared]) -> Judgement:
    """The fix to give, and why the tests do not decide, when they do not."""
    best = weighed[0]
    rivals = [w for w in weighed[1:] if not w.flags and separating(table, best, w) is not None]
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
        found = separating(table, best, rival)
        assert found is not None
        compared, ours, theirs = found
        return Judgement(
            best,
            Doubt(
                f"another fix passes them too: {_said(rival)}",
                compared["call"],
                _outcome(ours),
                _outcome(theirs),
            ),
            rival=rival,
        )
    over = [w for w in weighed[1:] if w.flags]
    note = "; ".join(f"{_said(w)} {w.flags[0].said}" for w in over[:2])
    return Judgement(best, None, f" Passed over: {note}." if note else "")


def separating(
    table: Sequence[Compared], a: Weighed, b: Weighed
) -> tuple[Compared, Result, Result] | None:
    """The input on which a and b do different things (neither running out of time): one
    where both return first, then the shortest call; None when they agree on every input."""
    found = [
        (compared, compared["results"][a.index], compared["results"][b.index])
        for compared in table
        if _differ(compared["results"][a.index], compared["results"][b.index])
    ]
    if not found:
        return None
    found.sort(key=lambda f: f[1]["kind"] != "return" or f[2]["kind"] != "return")
    return found[0]


def own_raises(text: str, qualname: str) -> frozenset[str]:
    """The exception names the function raises itself (``raise X(...)``, ``raise X``)."""
    function = _function(text, qualname)
    if function is None:
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name):
                names.add(target.id)
            elif isinstance(target, ast.Attribute):
                names.add(target.attr)
    return frozenset(names)


def silences(mutant: Mutant, text: str) -> str:
    """What the edit deletes that guards the function (a raise, an assert, a guard's whole
    body), as a clause; empty when it deletes none."""
    if "delete" not in mutant.operator.split(PAIR):
        return ""
    gone = text[mutant.start : mutant.end].strip()
    first = gone.split("\n", 1)[0].strip()
    short = first if len(first) <= 40 else first[:39] + "…"
    if first.startswith(("raise ", "raise(")) or first == "raise":
        return f"deletes `{short}`: the tests cannot tell whether the check is the bug"
    if first.startswith("assert "):
        return f"deletes `{short}`: the tests cannot tell whether the check is the bug"
    if mutant.replacement.strip() == "pass":
        return f"empties a block (`{short}` becomes `pass`) instead of changing its condition"
    return ""


def _flags(
    mutant: Mutant, text: str, table: Sequence[Compared], index: int, raised: frozenset[str]
) -> tuple[Flag, ...]:
    flags: list[Flag] = []
    said = silences(mutant, text)
    if said:
        flags.append(Flag(said, *_first_difference(table, index)))
    beyond = [c for c in table if c["origin"] != "failing"]
    # An exception the original raises itself, or on some other input tried, is not new: a
    # window of 0 divides by zero in the original too, where its loop runs at all.
    known = raised | {c["results"][0]["type"] for c in table if c["results"][0]["kind"] == "raise"}
    new = next(
        (
            c
            for c in beyond
            if c["results"][0]["kind"] == "return"
            and c["results"][index]["kind"] == "raise"
            and c["results"][index]["type"] not in known
        ),
        None,
    )
    if new is not None:
        mine, before = new["results"][index], new["results"][0]
        flags.append(
            Flag(
                f"raises {mine['type']} on `{new['call']}`, where the original returns "
                f"`{before['repr']}`",
                new["call"],
                _outcome(mine),
                _outcome(before),
            )
        )
    flags += _lost_raise(table, index, raised)
    flags += _new_type(table, index)
    return tuple(flags)


def _lost_raise(table: Sequence[Compared], index: int, raised: frozenset[str]) -> list[Flag]:
    """A raise of the original's own that the fix never reaches, on any input."""
    for name in sorted(raised):
        where = next(
            (
                c
                for c in table
                if c["results"][0]["kind"] == "raise"
                and c["results"][0]["type"] == name
                and c["origin"] != "failing"
            ),
            None,
        )
        reached = any(
            c["results"][index]["kind"] == "raise" and c["results"][index]["type"] == name
            for c in table
        )
        if where is not None and not reached:
            ours = where["results"][index]
            return [
                Flag(
                    f"never raises {name}, which the original raises on `{where['call']}`",
                    where["call"],
                    _outcome(ours),
                    _outcome(where["results"][0]),
                )
            ]
    return []


def _new_type(table: Sequence[Compared], index: int) -> list[Flag]:
    """A type the fix returns that the original never returned, nor the fix on the failing
    calls (whose tests pass with it: the tests endorse it)."""
    known = {c["results"][0]["type"] for c in table if c["results"][0]["kind"] == "return"}
    known |= {
        c["results"][index]["type"]
        for c in table
        if c["origin"] == "failing" and c["results"][index]["kind"] == "return"
    }
    for compared in table:
        ours, original = compared["results"][index], compared["results"][0]
        if ours["kind"] == "return" and original["kind"] == "return" and ours["type"] not in known:
            return [
                Flag(
                    f"returns {ours['type']} on `{compared['call']}`, where the original "
                    f"returns {original['type']}",
                    compared["call"],
                    _outcome(ours),
                    _outcome(original),
                )
            ]
    return []


def _changed(table: Sequence[Compared], index: int) -> int:
    return sum(
        1
        for c in table
        if c["origin"] != "failing" and _differ(c["results"][0], c["results"][index])
    )


def _first_difference(table: Sequence[Compared], index: int) -> tuple[str, str, str]:
    for compared in table:
        if compared["origin"] != "failing" and _differ(
            compared["results"][0], compared["results"][index]
        ):
            ours, original = compared["results"][index], compared["results"][0]
            return compared["call"], _outcome(ours), _outcome(original)
    return "", "", ""


def _differ(a: Result, b: Result) -> bool:
    return "timeout" not in (a["kind"], b["kind"]) and a["group"] != b["group"]


def _outcome(result: Result) -> str:
    if result["kind"] == "raise":
        return f"raises {result['type']}"
    if result["kind"] == "timeout":
        return "does not finish"
    return f"returns {result['repr']}"


def _said(weighed: Weighed) -> str:
    return f"{weighed.mutant.description} on line {weighed.mutant.line}"


def _function(text: str, qualname: str) -> ast.AST | None:
    try:
        tree = parse(text)
    except (SyntaxError, ValueError):
        return None
    nodes: list[tuple[str, ast.AST]] = [("", node) for node in tree.body]
    while nodes:
        prefix, node = nodes.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if prefix + node.name == qualname:
                return node
        elif isinstance(node, ast.ClassDef):
            nodes += [(f"{prefix}{node.name}.", child) for child in node.body]
    return None
