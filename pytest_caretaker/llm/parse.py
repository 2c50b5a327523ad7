"""Parse: turn a model's reply into typed edits, or a reason precise enough to send back to it.

Accepted shapes: a tool call (explicit path and function), a fenced code block, prose around fenced
blocks, bare code, and a bare function body (it replaces the body of the best-ranked editable
function). A ``def name`` is matched to the localized suspects (parse_targets.py: a method replaces
the method of that name in the suspect's class); a new function is accepted only as a helper that
the fix calls. An assignment (``VAT = 0.2``, ``RATE: float = 0.2``, ``LIMIT += 5``, ``area =
lambda …``, at the top or in a ``class Shop:`` block) replaces the project's module- or
class-level assignment of that name; one that names none is a function's body.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from collections.abc import Callable, Sequence

from pytest_caretaker import syntax
from pytest_caretaker.llm.parse_targets import Files, Targets
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Edit, Proposal, Unparsed

_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_FILE_HINT = re.compile(r"^\s*#\s*(?:file|path)\s*:\s*(\S+\.py)\s*$", re.I | re.M)
_CODE_START = re.compile(r"^[ \t]*(?:@|def |async def |class |import |from \S+ import )", re.M)


def parse_reply(
    text: str,
    tool_arguments: Sequence[str],
    suspects: Sequence[Suspect],
    editable: Callable[[Suspect], bool],
    files: Files,
) -> Proposal | Unparsed:
    """Parse a reply; tool call arguments (JSON strings) take precedence over the text."""
    targets = Targets(suspects, editable, files)
    try:
        if tool_arguments:
            return _parse_tool_calls(tool_arguments, targets, text)
        return _parse_text(text, targets)
    except (RecursionError, MemoryError):  # json, ast and libcst recurse on nesting
        return Unparsed("The reply is nested too deeply to parse; reply with ordinary Python.")


def _parse_text(text: str, targets: Targets) -> Proposal | Unparsed:
    if not text.strip():
        return Unparsed(
            "The reply was empty; reply with the corrected function in a ```python block."
        )
    blocks = [
        body
        for lang, body in _FENCE.findall(text)
        if lang.lower() in ("", "python", "py", "python3")
    ]
    explanation = _FENCE.sub("", text).strip()
    if not blocks:
        start = _CODE_START.search(text)
        if start is None:
            return Unparsed(
                "The reply holds no code. Reply with the complete corrected function in a "
                f"```python block; the functions that may change: {targets.allowed()}."
            )
        blocks = [text[start.start() :]]
        explanation = text[: start.start()].strip()
    edits: list[Edit] = []
    for block in blocks:
        parsed = _parse_code(block, None, None, targets)
        if isinstance(parsed, Unparsed):
            return parsed
        edits.extend(parsed)
    return _finish(edits, explanation, targets)


def _parse_tool_calls(arguments: Sequence[str], targets: Targets, text: str) -> Proposal | Unparsed:
    edits: list[Edit] = []
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
            parsed = _parse_code(item["code"], path, function, targets)
            if isinstance(parsed, Unparsed):
                return parsed
            edits.extend(parsed)
    explanation = " ".join(e for e in explanations if e).strip() or text.strip()
    return _finish(edits, explanation, targets)


def _parse_code(
    code: str, path: str | None, function: str | None, targets: Targets
) -> list[Edit] | Unparsed:
    hint = _FILE_HINT.search(code)
    if path is None and hint:
        path = hint.group(1).lstrip("./")
    source = textwrap.dedent(code.replace("\r\n", "\n")).strip("\n") + "\n"
    tree = _module(source)
    if isinstance(tree, Unparsed):
        return tree
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    named = function if function is not None and len(tree.body) - len(imports) == 1 else None
    assigned = _assignment_edits(tree.body, source, "", named, path, targets)
    loose = len(tree.body) - len(imports) - len(assigned)
    # Neither a definition nor only imports and known assignments: a bare body. Imports alone
    # join the other edits.
    if not defs and not classes and (loose or not assigned) and len(imports) != len(tree.body):
        return _body_edit(source, path, function, targets)
    edits: list[Edit] = list(assigned)
    for node in defs:
        name = function if function is not None and len(defs) == 1 else node.name
        edits.append(_def_edit(node, source, name, path, targets))
    for cls in classes:
        methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        attributes = _assignment_edits(cls.body, source, f"{cls.name}.", None, path, targets)
        if not methods and not attributes:
            return Unparsed(
                f"class {cls.name} has no methods nor known attributes; reply with the methods "
                "or class attributes to replace."
            )
        edits += attributes
        for node in methods:
            edits.append(_def_edit(node, source, f"{cls.name}.{node.name}", path, targets))
    for statement in imports:
        text = ast.get_source_segment(source, statement) or ""
        edits.append(Edit("import", path or "", "", text))
    return edits


def _assignment_edits(
    body: Sequence[ast.stmt],
    source: str,
    prefix: str,
    function: str | None,
    path: str | None,
    targets: Targets,
) -> list[Edit]:
    """The assignments of body (``X = …``, ``X: T = …``, ``X += …``) that name an assignment
    of the project: each replaces it. Any other assignment is a function's body or loose code."""
    edits: list[Edit] = []
    lines = source.splitlines()
    for node in body:
        target = (
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        )
        if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            target = node.target
        if not isinstance(target, ast.Name):
            continue
        name = prefix + target.id
        if function is not None and function.rsplit(".", 1)[-1] == target.id:
            name = function  # the tool call's qualified name
        found = targets.assignment(name, path, augmented=isinstance(node, ast.AugAssign))
        if found is not None:
            text = textwrap.dedent("\n".join(lines[node.lineno - 1 : node.end_lineno])) + "\n"
            edits.append(Edit("replace", found[0], found[1], text))
    return edits


def _module(source: str) -> ast.Module | Unparsed:
    try:
        tree = syntax.parse(source)
    except SyntaxError as error:
        return Unparsed(
            f"The code does not parse: {error.msg} at line {error.lineno} of the block. "
            "Reply with complete, valid Python for the whole function."
        )
    except ValueError:  # Python 3.10 and 3.11 refuse NUL bytes with a ValueError
        return Unparsed("The code holds a NUL byte; reply with plain Python source.")
    if not tree.body:
        return Unparsed(
            "The code block holds no statement. Reply with the complete corrected function."
        )
    return tree


def _def_edit(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    source: str,
    name: str,
    path: str | None,
    targets: Targets,
) -> Edit:
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    lines = source.splitlines()[start - 1 : node.end_lineno]
    text = textwrap.dedent("\n".join(lines)) + "\n"
    first = node.args.posonlyargs + node.args.args
    found = targets.resolve(name, path, method=bool(first) and first[0].arg in ("self", "cls"))
    if found is None and path is not None and targets.files(path) is None:
        # A file caretaker cannot read (outside the project, missing): the guard says why.
        return Edit("replace", path, name, text)
    if found is None:
        return Edit("helper", path or "", node.name, text)
    return Edit("replace", found[0], found[1], text)


def _body_edit(
    source: str, path: str | None, function: str | None, targets: Targets
) -> list[Edit] | Unparsed:
    target = targets.resolve(function, path) if function else None
    first = targets.functions()[:1]
    if target is None and first:
        target = (first[0].path, first[0].qualname)
    if target is None:
        return Unparsed(
            "The reply holds no function definition. Reply with the complete corrected "
            f"definition (def ...) of one of: {targets.allowed()}."
        )
    rel, qualname = target
    whole = Unparsed(f"Reply with the complete definition of {rel}::{qualname}, not its body.")
    file = targets.files(rel)
    definition = file.find(qualname) if file is not None else None
    if file is None or definition is None:
        return whole
    # The original signature (decorators, comments after the colon) around the new body.
    import libcst as cst

    try:
        original = cst.parse_module(textwrap.dedent(file.source_of(definition))).body[0]
        statements = cst.parse_module(source).body
    except (cst.ParserSyntaxError, IndexError):
        return whole
    if not isinstance(original, cst.FunctionDef) or not isinstance(
        original.body, cst.IndentedBlock
    ):
        return whole
    replaced = original.with_changes(body=original.body.with_changes(body=statements))
    return [Edit("replace", rel, qualname, cst.Module(body=[replaced]).code)]


def _finish(edits: list[Edit], explanation: str, targets: Targets) -> Proposal | Unparsed:
    replaced = [e for e in edits if e.kind == "replace"]
    if not replaced:
        names = ", ".join(e.qualname for e in edits if e.kind == "helper") or "nothing"
        return Unparsed(
            f"The reply defines {names}, which matches no function of the code under test. "
            f"Reply with the complete corrected definition of one of: {targets.allowed()}."
        )
    home = replaced[0].path
    finished: list[Edit] = []
    for edit in edits:
        if edit.kind == "replace":
            finished.append(edit)
            continue
        target = edit.path or home
        if edit.kind == "helper" and not _is_called(edit.qualname, replaced):
            return Unparsed(
                f"Function {edit.qualname} does not exist in {target} and the fix does not call "
                f"it. Replace one of: {targets.allowed()}."
            )
        finished.append(Edit(edit.kind, target, edit.qualname, edit.source))
    return Proposal(tuple(_dedupe(finished)), _clean_explanation(explanation))


def _is_called(name: str, edits: Sequence[Edit]) -> bool:
    pattern = re.compile(rf"\b{re.escape(name)}\b")
    return any(pattern.search(edit.source.split("\n", 1)[-1]) for edit in edits)


def _dedupe(edits: Sequence[Edit]) -> list[Edit]:
    seen: dict[tuple[str, str, str], Edit] = {}
    for edit in edits:
        seen[(edit.kind, edit.path, edit.qualname or edit.source)] = edit  # the last one wins
    return list(seen.values())


def _clean_explanation(text: str) -> str:
    paragraph = " ".join(text.split())
    return paragraph[:1_000]
