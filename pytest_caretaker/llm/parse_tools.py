"""Parse a tool call: each edit names its file and function, and its code is read like a block
of a text reply (parse_code.py): a helper class it needs is added, a class it restates is left
out, and code a model wrapped in a fence is taken out of it.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence

from pytest_caretaker import syntax
from pytest_caretaker.llm import reply as replies
from pytest_caretaker.llm.parse_code import Code, Piece, changes, read_code
from pytest_caretaker.llm.parse_finish import Found, best, clean_explanation, finish, nothing
from pytest_caretaker.llm.parse_targets import Targets
from pytest_caretaker.llm.reply import Block
from pytest_caretaker.results import Edit, Proposal, Unparsed


def parse_tool_calls(
    arguments: Sequence[str], targets: Targets, text: str
) -> tuple[Proposal, ...] | Unparsed:
    pieces: list[Piece] = []
    notes: list[str] = []
    outside: list[Edit] = []
    explanations: list[str] = []
    for raw in arguments:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as error:
            return Unparsed(
                f"The tool call arguments are not valid JSON ({error.msg}); call it again."
            )
        if not isinstance(data, dict) or not isinstance(data.get("edits"), list):
            return Unparsed(
                'The tool call needs an "edits" list of {path, function, code} objects.'
            )
        explanations.append(str(data.get("explanation") or ""))
        for item in data["edits"]:
            if not isinstance(item, dict) or not isinstance(item.get("code"), str):
                return Unparsed('Each edit needs "path", "function" and "code" strings.')
            path = item.get("path") if isinstance(item.get("path"), str) else None
            function = item.get("function") if isinstance(item.get("function"), str) else None
            code = read_code(_unfenced(item["code"]), path, function, targets, function is not None)
            if isinstance(code, Unparsed):
                return code
            pieces += code.pieces
            notes += code.notes
            outside += code.outside
    explanation = clean_explanation(" ".join(e for e in explanations if e).strip() or text)
    if not any(changes(piece.edit) for piece in pieces):
        readings: list[tuple[Block, Code]] = [
            (Block("", 0, "tool"), Code(tuple(pieces), tuple(notes), outside=tuple(outside)))
        ]
        return nothing(Found(readings, [], []), targets, explanation)
    proposals: list[Proposal | Unparsed] = [finish([p.edit for p in pieces], explanation, notes)]
    if any(p.restated for p in pieces) and not all(p.restated for p in pieces if changes(p.edit)):
        kept = [p.edit for p in pieces if not p.restated]
        proposals.append(finish(kept, explanation, notes))
    return best(proposals)


def _unfenced(code: str) -> str:
    """A tool call's code as Python: a model sometimes wraps it in a fence, with prose. Code
    that parses as it is stays whole: the fences and ``>>>`` are its docstring's (a function
    documented with a ```` ```pycon ```` example lost all but the example)."""
    if "```" not in code and "~~~" not in code and ">>>" not in code:
        return code
    try:
        syntax.parse(textwrap.dedent(code))
        return code
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    blocks = [b for b in replies.read(code).blocks if b.tree is not None and b.tree.body]
    if not blocks or (len(blocks) == 1 and blocks[0].code.strip() == code.strip()):
        return code
    return max(blocks, key=lambda b: b.lines).code
