"""Parse: turn a model's reply into typed edits, or a reason precise enough to send back to it.

A tool call names each edit's file and function. A reply in text is read the way a careful
developer reads it (reply.py): every code block it holds is a candidate, whatever its tag or
fence, unfenced runs of code between paragraphs and ``>>>`` sessions included; a block that
does not parse never refuses the others. What each block proposes is parse_code.py's question: a
definition replaces the project's function, method or assignment of that name (parse_targets.py
finds which); a new function or class is a helper, kept only if the fix calls it; code the
project already has, restated unchanged, is left out. A complete definition beats a bare body,
and examples, calls, prints and outputs are never a body.

Where a reply defines a function more than once (the original, then the fix; a fix, then an
alternative), each definition is a reading of the reply: the one its prose marks as the fix
first, else the last one. ``read_reply`` gives the readings best first, each saying which
definitions it took; the repairer proves them in turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from pytest_caretaker.llm import reply as replies
from pytest_caretaker.llm.parse_code import Code, Piece, changes, read_code
from pytest_caretaker.llm.parse_finish import (
    Found,
    best,
    clean_explanation,
    finish,
    nothing,
)
from pytest_caretaker.llm.parse_targets import Files, Targets
from pytest_caretaker.llm.parse_tools import parse_tool_calls
from pytest_caretaker.llm.reply import Block
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Proposal, Unparsed

_FIXED = re.compile(
    r"\b(?:fix(?:ed|es)?|correct(?:ed|ion)?|updated?|revised|final|solution|should be|working)\b",
    re.I,
)
_ORIGINAL = re.compile(
    r"\b(?:original|buggy|bug|incorrect|wrong|broken|current(?:ly)?|existing|old|before)\b", re.I
)


def parse_reply(
    text: str,
    tool_arguments: Sequence[str],
    suspects: Sequence[Suspect],
    editable: Callable[[Suspect], bool],
    files: Files,
) -> Proposal | Unparsed:
    """The best reading of a reply; tool call arguments (JSON strings) take precedence over the
    text."""
    readings = read_reply(text, tool_arguments, suspects, editable, files)
    return readings if isinstance(readings, Unparsed) else readings[0]


def read_reply(
    text: str,
    tool_arguments: Sequence[str],
    suspects: Sequence[Suspect],
    editable: Callable[[Suspect], bool],
    files: Files,
    shown: Collection[tuple[str, str]] | None = None,
) -> tuple[Proposal, ...] | Unparsed:
    """Every reading of a reply that proposes a fix, best first (at most MAX_READINGS).
    shown: the definitions the prompt showed (every suspect when not told)."""
    targets = Targets(suspects, editable, files, shown)
    try:
        if tool_arguments:
            return parse_tool_calls(tool_arguments, targets, text)
        return _parse_text(text, targets)
    except (RecursionError, MemoryError):  # json, ast and libcst recurse on nesting
        return Unparsed("The reply is nested too deeply to parse; reply with ordinary Python.")


def _parse_text(text: str, targets: Targets) -> tuple[Proposal, ...] | Unparsed:
    if not text.strip():
        return Unparsed(
            "The reply was empty; reply with the corrected function in a ```python block."
        )
    reply = replies.read(text)
    found = Found([], [], [])
    for block in reply.blocks:
        if block.tree is None:
            found.failed.append(block)
            continue
        code = read_code(block.code, None, None, targets)
        if isinstance(code, Unparsed) and code.whole:
            return code
        if isinstance(code, Unparsed):
            found.refused.append(code)
        elif block.whole or not code.body:  # a run salvaged from broken code is no body
            found.readings.append((block, code))
    explanation = clean_explanation(reply.prose)
    defining = [(b, c) for b, c in found.readings if c.replaces and not c.body]
    if defining:
        return _readings(found.readings, explanation)
    bodies = [(b, c) for b, c in found.readings if c.body and c.replaces]
    if bodies:  # the last body first: a reply's later code is its answer
        proposals = [finish([p.edit for p in c.pieces], explanation, c.notes) for _, c in bodies]
        return best(list(reversed(proposals)))
    return nothing(found, targets, explanation)


def _readings(found: list[tuple[Block, Code]], explanation: str) -> tuple[Proposal, ...] | Unparsed:
    """The readings of a reply that defines some of the project's functions: for each one
    defined more than once, its definitions in the reply's order of emphasis."""
    choices: dict[tuple[str, str], list[tuple[Block, Piece]]] = {}
    helpers: dict[tuple[str, str], Piece] = {}
    imports: list[Piece] = []
    notes: list[str] = []
    for block, code in found:
        notes += code.notes
        defines = any(piece.edit.kind != "import" for piece in code.pieces)
        for piece in code.pieces:
            edit = piece.edit
            if changes(edit) and not code.body:
                choices.setdefault((edit.path, edit.qualname), []).append((block, piece))
            elif edit.kind == "helper":
                helpers[(edit.path, edit.qualname)] = piece  # the last one wins
            elif edit.kind == "import" and defines:  # an example's imports are the example's
                imports.append(piece)
    for options in choices.values():
        options.sort(key=lambda option: (_emphasis(option[0].lead), option[0].index), reverse=True)
    depth = max(len(options) for options in choices.values())
    chosen = [
        [options[min(k, len(options) - 1)] for options in choices.values()] for k in range(depth)
    ]
    restated = [option for option in chosen[0] if option[1].restated]
    if restated and len(restated) < len(chosen[0]):
        # The class restated around the fix may be a sketch of the project's: the fix alone next.
        chosen.insert(1, [option for option in chosen[0] if not option[1].restated])
    # A definition restated unchanged beside its fix is no news.
    notes = [n for n in notes if not any(n.startswith(f"{p}::{q} ") for p, q in choices)]
    proposals = []
    for picked in chosen:
        edits = [piece.edit for _, piece in picked]
        edits += [piece.edit for piece in (*helpers.values(), *imports)]
        proposals.append(finish(edits, explanation, [*notes, *_which(picked, choices)]))
    return best(proposals)


def _emphasis(lead: str) -> int:
    """How the prose before a block presents its code: 2 as the fix, 0 as the original."""
    fixed = _FIXED.search(lead) is not None
    return 2 if fixed else 0 if _ORIGINAL.search(lead) else 1


def _which(
    picked: list[tuple[Block, Piece]], choices: dict[tuple[str, str], list[tuple[Block, Piece]]]
) -> list[str]:
    """What a reading took where the reply gives a definition more than once."""
    said = []
    for block, piece in picked:
        options = choices[(piece.edit.path, piece.edit.qualname)]
        if len(options) > 1:
            why = "marked as the fix" if _emphasis(block.lead) == 2 else "in the reply's order"
            said.append(
                f"the reply defines {piece.edit.ref} {len(options)} times; this reading takes "
                f"the one in code block {block.index + 1} ({why})"
            )
    return said
