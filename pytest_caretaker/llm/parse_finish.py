"""Parse, finished: the edits a reading of a reply chose become one proposal, or the reason it
holds none.

Helpers are kept only when the fix calls them (directly or through another helper), a new method
of a project's class always (it is part of the fix, like a replacement), each new top-level
definition and import goes into the file of the first replaced definition, an example's import of
the module it runs is dropped, and what was left out is said in the proposal's note.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_caretaker import syntax
from pytest_caretaker.llm.parse_code import Code, changes
from pytest_caretaker.llm.parse_targets import Targets
from pytest_caretaker.llm.reply import Block
from pytest_caretaker.results import Edit, Proposal, Unparsed

#: Readings of one reply proved at most: each costs a verification, never a request.
MAX_READINGS = 4


@dataclass(frozen=True)
class Found:
    """What the blocks of a reply hold, before choosing among them."""

    readings: list[tuple[Block, Code]]
    failed: list[Block]  # blocks that do not parse
    refused: list[Unparsed]  # blocks that parse into no edit, with the reason


def best(proposals: Sequence[Proposal | Unparsed]) -> tuple[Proposal, ...] | Unparsed:
    """The distinct proposals, in order (at most MAX_READINGS); else the first reason."""
    found: list[Proposal] = []
    for proposal in proposals:
        if isinstance(proposal, Proposal) and proposal.edits not in [p.edits for p in found]:
            found.append(proposal)
    if found:
        return tuple(found[:MAX_READINGS])
    return next(p for p in proposals if isinstance(p, Unparsed))


def nothing(found: Found, targets: Targets, explanation: str = "") -> tuple[Proposal] | Unparsed:
    """Why a reply proposes no fix, in words the model can act on; or, when all it changes is
    code the scope keeps (test code under --heal-scope=code), that change, for the guard to
    refuse as such (a reply that edits only the test is not output that did not parse)."""
    allowed = targets.allowed()
    helpers = [
        p.edit.qualname
        for _, c in found.readings
        for p in c.pieces
        if p.edit.kind == "helper" and not changes(p.edit)
    ]
    notes = [note for _, code in found.readings for note in code.notes]
    failed = sorted(found.failed, key=lambda b: ("def " in b.code or "class " in b.code, b.lines))
    if failed and ("def " in failed[-1].code or "class " in failed[-1].code):
        return _syntax(failed[-1])
    outside = [edit for _, code in found.readings for edit in code.outside]
    if outside:
        return (Proposal(tuple(dict.fromkeys(outside)), explanation),)
    if helpers:
        return Unparsed(
            f"The reply defines {', '.join(dict.fromkeys(helpers))}, which matches no function "
            "of the code under test. Reply with the complete corrected definition of one of: "
            f"{allowed}."
        )
    if notes:
        return Unparsed(
            f"The reply proposes no change: {'; '.join(dict.fromkeys(notes))}. Reply with the "
            f"corrected definition of one of: {allowed}."
        )
    if found.refused:
        return found.refused[0]
    if failed:
        return _syntax(failed[-1])
    if found.readings:
        return Unparsed(
            "The reply's code only uses the functions (examples, calls or output); reply with "
            f"the complete corrected definition of one of: {allowed}."
        )
    return Unparsed(
        "The reply holds no code. Reply with the complete corrected function in a ```python "
        f"block; the functions that may change: {allowed}."
    )


def _syntax(block: Block) -> Unparsed:
    if block.error == "the block holds no code":
        return Unparsed("The code block is empty. Reply with the complete corrected function.")
    return Unparsed(
        f"The code does not parse: {block.error}. Reply with complete, valid Python for the "
        "whole function."
    )


def finish(edits: list[Edit], explanation: str, notes: Sequence[str]) -> Proposal | Unparsed:
    """The edits as one proposal: helpers the fix calls (the others left out, said why), each
    new definition and import in the file of the first replaced one."""
    # A new method of a project's class (``Class.method``, named on its own) changes the class
    # as a replacement does: the proof and the guard judge it, no call of the fix needs it.
    replaced = [e for e in edits if changes(e)]
    if not replaced:
        return Unparsed("The reply replaces no function of the code under test.")
    home = replaced[0].path
    said = list(notes)
    helpers = [e for e in edits if e.kind == "helper" and not changes(e)]
    kept = _called(helpers, replaced)
    said += [
        f"{e.qualname} is left out: the fix does not {'call' if _defines(e) else 'use'} it"
        for e in helpers
        if e not in kept
    ]
    finished = list(replaced)
    for edit in kept:
        finished.append(Edit(edit.kind, edit.path or home, edit.qualname, edit.source))
    for edit in [e for e in edits if e.kind == "import"]:
        path = edit.path or home
        if _imports_itself(edit.source, path) or not _is_used(edit.source, finished):
            continue  # an example's import, or one of a definition left out
        finished.append(Edit(edit.kind, path, edit.qualname, edit.source))
    note = "; ".join(dict.fromkeys(said))
    return Proposal(tuple(_dedupe(finished)), explanation, note)


def _is_used(statement: str, edits: Sequence[Edit]) -> bool:
    """Whether a name an import statement binds is used by one of edits."""
    try:
        node = syntax.parse(statement).body[0]
    except (SyntaxError, ValueError, IndexError):
        return True
    if not isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    names = [(a.asname or a.name).split(".")[0] for a in node.names]
    used = re.compile(rf"\b(?:{'|'.join(re.escape(name) for name in names)})\b")
    return "*" in names or any(used.search(edit.source) for edit in edits)


def _imports_itself(statement: str, path: str) -> bool:
    """Whether an import statement imports the module at path (which it would be added to)."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    try:
        node = syntax.parse(statement).body[0]
    except (SyntaxError, ValueError, IndexError):
        return False
    if isinstance(node, ast.ImportFrom):
        names = [node.module or ""] + ([a.name for a in node.names] if not node.module else [])
    elif isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        return False
    return any(name.rsplit(".", 1)[-1] == stem for name in names)


def _called(helpers: list[Edit], replaced: list[Edit]) -> list[Edit]:
    """The helpers the replaced definitions call, directly or through another helper."""
    kept: list[Edit] = []
    callers = list(replaced)
    while True:
        more = [h for h in helpers if h not in kept and _is_called(h.qualname, callers)]
        if not more:
            return [h for h in helpers if h in kept]
        kept += more
        callers += more


def _defines(edit: Edit) -> bool:
    """Whether a helper is a function or class (not a constant)."""
    return edit.source.lstrip().startswith(("def ", "async ", "class ", "@"))


def _is_called(name: str, edits: Sequence[Edit]) -> bool:
    pattern = re.compile(rf"\b{re.escape(name)}\b")
    # A definition's own first line (its name) aside; an assignment's first line is its value.
    texts = (e.source.split("\n", 1)[-1] if _defines(e) else e.source for e in edits)
    return any(pattern.search(text) for text in texts)


def _dedupe(edits: Sequence[Edit]) -> list[Edit]:
    seen: dict[tuple[str, str, str], Edit] = {}
    for edit in edits:
        seen[(edit.kind, edit.path, edit.qualname or edit.source)] = edit  # the last one wins
    return list(seen.values())


def clean_explanation(text: str) -> str:
    paragraph = " ".join(text.split())
    return paragraph[:1_000]
