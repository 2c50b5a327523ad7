"""The oracle of benchmarks/real_bugs.py, and what its first prompt showed.

The oracle is a model whose every reply is the developer's fix: one propose_fix edit per
definition the fix changed or added (a function, a method, a class whose own statements changed,
a module constant), each holding the complete definition as the fix commit has it; the imports
the fix adds open the code of its file's first edit, followed by the other top-level statements
it adds (``try: import …`` blocks). What a reply cannot say (a removed definition, a change to
other top-level statements) is noted.

Localization recall reads the first request caretaker sent, and the first request of each
problem (a run whose failing tests have two causes is two problems): a request shows a
definition the developer changed when it holds its first line from the buggy source (``def
f(...``, ``class C...``, ``NAME = ...``), caretaker's line numbers and markers aside. Prompt
size is the characters of the request's messages.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import real_bugs_code as code
import real_bugs_lib as lib

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Reply:
    edits: tuple[dict[str, str], ...]
    notes: tuple[str, ...]  # what the reply cannot say


def sources(gitdir: Path, bug: lib.Bug, path: str) -> tuple[str, str]:
    """A code file at the buggy state and at the fix."""
    old = lib.show(gitdir, bug.parent, path) or b""
    new = lib.show(gitdir, bug.fix, path) or b""
    return old.decode("utf-8", "replace"), new.decode("utf-8", "replace")


def reply(gitdir: Path, bug: lib.Bug) -> Reply:
    edits: list[dict[str, str]] = []
    notes: list[str] = []
    for path in bug.files:
        old, new = sources(gitdir, bug, path)
        found = code.changes(old, new)
        whole = [c.qualname for c in found if c.kind == "class" and c.status != "removed"]
        file_edits: list[dict[str, str]] = []
        helpers: list[code.Change] = []
        for change in found:
            inside = any(change.qualname.startswith(name + ".") for name in whole)
            if change.status == "removed":
                notes.append(f"{path}: removes {change.qualname}")
            elif change.kind == "module":
                statements, others = code.added_statements(old, new)
                if others or not statements:
                    notes.append(f"{path}: changes top-level statements")
            elif change.kind in ("function", "class", "constant") and not inside:
                assert change.new is not None
                if (
                    change.status == "added"
                    and change.kind != "constant"
                    and "." not in change.qualname
                ):
                    helpers.append(change)
                    continue
                edit = {"path": path, "function": change.qualname, "code": change.new.text}
                if edit["code"] not in (e["code"] for e in file_edits):
                    file_edits.append(edit)
        notes += with_helpers(path, file_edits, helpers)
        notes += with_module_code(path, file_edits, old, new)
        edits += file_edits
    return Reply(tuple(edits), tuple(notes))


def with_helpers(path: str, edits: list[dict[str, str]], helpers: list[code.Change]) -> list[str]:
    """Put each new top-level function or class the fix adds before the code of the edit that
    uses it (caretaker adds a helper that a fix's code calls), else of the file's first edit;
    a file whose fix only adds definitions gets an edit of its own per definition."""
    notes = []
    for helper in helpers[::-1]:
        assert helper.new is not None
        uses = re.compile(rf"\b{re.escape(helper.qualname)}\b")
        home = next((e for e in edits if uses.search(e["code"])), edits[0] if edits else None)
        if home is None:
            edits.append({"path": path, "function": helper.qualname, "code": helper.new.text})
            notes.append(f"{path}: only adds {helper.qualname}")
        else:
            home["code"] = helper.new.text + "\n\n" + home["code"]
    return notes


def with_module_code(path: str, edits: list[dict[str, str]], old: str, new: str) -> list[str]:
    """Open the code of the file's first edit with the imports the fix adds, then the other
    top-level statements it adds (``try: import …`` blocks)."""
    opening = [new_imports(old, new), code.added_statements(old, new)[0]]
    opening = [text for text in opening if text]
    if opening and edits:
        edits[0]["code"] = "\n\n".join([*opening, edits[0]["code"]])
    elif opening[:1] and opening[0] == new_imports(old, new):
        return [f"{path}: only adds imports"]
    return []


def new_imports(old: str, new: str) -> str:
    """The import statements of new that old does not have."""
    before = code.definitions(old).get(code.IMPORTS)
    after = code.definitions(new).get(code.IMPORTS)
    if after is None:
        return ""
    had = set(before.key.splitlines()) if before else set()
    added = []
    for node in ast.parse(after.text).body:
        if code.key(node) not in had:
            added.append(ast.get_source_segment(after.text, node) or "")
    return "\n".join(added)


def tool_arguments(bug: lib.Bug, answer: Reply) -> dict[str, Any]:
    explanation = f"The developer's own fix ({bug.fix[:10]}): {bug.what}"
    return {"explanation": explanation, "edits": list(answer.edits)}


# -- the first prompt ---------------------------------------------------------------------------


def opening(body: dict[str, Any]) -> bool:
    """Whether a request opens a problem's conversation (no reply of the model's in it yet)."""
    return not any(message.get("role") == "assistant" for message in body.get("messages", []))


def messages_text(body: dict[str, Any]) -> str:
    """The text of a request's messages (content strings, and tool calls' arguments)."""
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [c.get("text", "") for c in content if isinstance(c, dict)]
        for call in message.get("tool_calls") or ():
            parts.append(json.dumps(call.get("function", {}).get("arguments", "")))
    return "\n".join(parts)


def first_lines(gitdir: Path, bug: lib.Bug) -> dict[str, str]:
    """Per definition the developer changed ("path::qualname"), its first line in the buggy
    source, without indentation; "" when another line of its file reads the same (a method
    ``def validate(self, data):`` of each of three classes), which then proves nothing."""
    found = {}
    by_path: dict[str, tuple[dict[str, code.Definition], list[str]]] = {}
    for entry in bug.functions:
        path, qualname = entry.split("::", 1)
        if path not in by_path:
            old = sources(gitdir, bug, path)[0]
            by_path[path] = (code.definitions(old), [line.strip() for line in old.splitlines()])
        definitions, lines = by_path[path]
        definition = definitions.get(qualname)
        if definition is not None:
            head = _head(definition.text)
            found[entry] = head if lines.count(head) == 1 else ""
    return found


def shown(prompt: str, heads: dict[str, str]) -> list[str]:
    """The definitions the prompt shows: a block of their own (``## path::qualname (``), or
    their first line where it is the only one of its file that reads so (a nested function
    shown in the function holding it)."""
    flat = _squeeze(prompt)
    return [
        entry
        for entry, head in heads.items()
        if f"## {entry} (" in prompt or (head and _squeeze(head) in flat)
    ]


def _head(text: str) -> str:
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("@"):
            return line.strip()
    return ""


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)
