"""Flags: what a fix that passes the tests does beyond them that looks like silencing the
symptom (judge.py ranks a flagged fix after every other, and never gives one as HEALED).

Read from the edit itself: a deleted ``raise`` or ``assert``, a block emptied to ``pass``. Read
from the table of what the original and the fix do on the tests' calls and derived inputs
(verify/behaviour.py): a ``raise`` of the original's own that the fix never reaches; an
exception the original never raises (neither itself nor on any input tried), on an input where
the original returned; a return type the original never returned, nor the fix on the failing
calls (whose tests endorse it).
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import PAIR
from pytest_caretaker.syntax import parse
from pytest_caretaker.verify.protocol import Compared, Result


@dataclass(frozen=True)
class Flag:
    """Why a fix looks like silencing the symptom, and the input that shows it."""

    said: str  # "deletes `raise ValueError(...)`", "raises IndexError on `median([])` ..."
    call: str = ""
    outcome: str = ""  # what the fix does on call
    original: str = ""  # what the original does on call


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
    operators = mutant.operator.split(PAIR)
    if operators == ["replace"]:  # a whole function rewritten (a model's fix)
        return _checks_removed(mutant, text)
    if "insert" in operators:
        return _dead_code(mutant, text)
    if "delete" not in operators:
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


def guards(text: str, mutant: Mutant, raised: tuple[str, int]) -> bool:
    """Whether mutant edits the condition of an ``if`` whose body holds the line that raised."""
    if raised[0] != mutant.path:
        return False
    function = _function(text, mutant.function)
    return function is not None and any(
        isinstance(node, ast.If)
        and node.test.lineno <= mutant.line <= (node.test.end_lineno or node.test.lineno)
        and node.body[0].lineno <= raised[1] <= (node.body[-1].end_lineno or raised[1])
        for node in ast.walk(function)
    )


def _checks_removed(mutant: Mutant, text: str) -> str:
    """A raise or an assert of the function that the rewritten function no longer has."""
    before, after = _function(text, mutant.function), _function(mutant.apply(text), mutant.function)
    if before is None or after is None:
        return ""
    for kind, said in ((ast.Raise, "a `raise`"), (ast.Assert, "an `assert`")):
        count = [sum(isinstance(n, kind) for n in ast.walk(f)) for f in (before, after)]
        if count[1] < count[0]:
            return f"removes {said} of the function: the tests cannot show the check is the bug"
    return ""


_JUMPS = ("return", "raise", "break", "continue")


def _dead_code(mutant: Mutant, text: str) -> str:
    """An inserted return (raise, break, continue) with statements of its block after it."""
    inserted = mutant.replacement.strip()
    if inserted.split(" ", 1)[0].split("(", 1)[0] not in _JUMPS:
        return ""
    indent = len(mutant.replacement) - len(mutant.replacement.lstrip())
    following = next((line for line in text[mutant.end :].splitlines() if line.strip()), "")
    if len(following) - len(following.lstrip()) < indent:
        return ""  # the block ends there: nothing is left unreachable
    short = inserted if len(inserted) <= 40 else inserted[:39] + "…"
    return f"inserts `{short}` before statements it leaves unreachable"


def flags(
    mutant: Mutant, text: str, table: Sequence[Compared], index: int, raised: frozenset[str]
) -> tuple[Flag, ...]:
    flags: list[Flag] = []
    said = silences(mutant, text)
    if said:
        flags.append(Flag(said, *first_difference(table, index)))
    beyond = [c for c in table if c["origin"] != "failing"]
    # An exception the original raises itself, or on some other input tried, is not new: a
    # window of 0 divides by zero in the original too, where its loop runs at all. Nor is one
    # the edited code raises itself: `sum(xs) / len(xs)` for `/ (len(xs) + 1)` divides `[]` by
    # zero, where the bug's `+ 1` hid it; the edit let the input reach code that fails.
    known = raised | {c["results"][0]["type"] for c in table if c["results"][0]["kind"] == "raise"}
    edited = edited_lines(mutant, text)
    new = next(
        (
            c
            for c in beyond
            if c["results"][0]["kind"] == "return"
            and c["results"][index]["kind"] == "raise"
            and c["results"][index]["type"] not in known
            and c["results"][index]["line"] not in edited
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
                outcome(mine),
                outcome(before),
            )
        )
    flags += _lost_raise(table, index, raised)
    flags += _new_type(table, index)
    return tuple(flags)


def edited_lines(mutant: Mutant, text: str) -> set[int]:
    """The lines of the fixed text that the edit wrote (a whole function rewritten: those that
    differ from the original's)."""
    if mutant.operator == "replace":
        old, new = text.splitlines(), mutant.apply(text).splitlines()
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        return {
            line + 1
            for tag, _, _, start, end in matcher.get_opcodes()
            if tag != "equal"
            for line in range(start, end)
        }
    first = text.count("\n", 0, mutant.start) + 1
    return {mutant.line, *range(first, first + mutant.replacement.count("\n") + 1)}


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
                    outcome(ours),
                    outcome(where["results"][0]),
                )
            ]
    return []


def _new_type(table: Sequence[Compared], index: int) -> list[Flag]:
    """A type the fix returns that the original never returned, nor the fix on the failing
    calls (whose tests pass with it: the tests endorse it). An int and a float are one kind
    here: a derived ``0.0`` passed through where the original returned a bound of ``10`` is no
    new type."""
    known = {_kind(c["results"][0]) for c in table if c["results"][0]["kind"] == "return"}
    known |= {
        _kind(c["results"][index])
        for c in table
        if c["origin"] == "failing" and c["results"][index]["kind"] == "return"
    }
    for compared in table:
        ours, original = compared["results"][index], compared["results"][0]
        if ours["kind"] == "return" and original["kind"] == "return" and _kind(ours) not in known:
            return [
                Flag(
                    f"returns {ours['type']} on `{compared['call']}`, where the original "
                    f"returns {original['type']}",
                    compared["call"],
                    outcome(ours),
                    outcome(original),
                )
            ]
    return []


def _kind(result: Result) -> str:
    return "number" if result["type"] in ("int", "float") else result["type"]


def first_difference(table: Sequence[Compared], index: int) -> tuple[str, str, str]:
    for compared in table:
        if compared["origin"] != "failing" and differ(
            compared["results"][0], compared["results"][index]
        ):
            ours, original = compared["results"][index], compared["results"][0]
            return compared["call"], outcome(ours), outcome(original)
    return "", "", ""


def differ(a: Result, b: Result) -> bool:
    return "timeout" not in (a["kind"], b["kind"]) and a["group"] != b["group"]


def outcome(result: Result) -> str:
    if result["kind"] == "raise":
        return f"raises {result['type']}"
    if result["kind"] == "timeout":
        return "does not finish"
    return f"returns {result['repr']}"


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
