"""Parse: turn a model's reply into typed edits, or a reason precise enough to send back to it.

Accepted shapes: a tool call (explicit path and function), a fenced code block, prose around fenced
blocks, bare code, and a bare function body (it replaces the body of the best-ranked editable
function). A ``def name`` is matched to the localized candidates (a method replaces the method of
that name in the candidate's class); a new function is accepted only as a helper that the fix calls.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from collections.abc import Callable, Sequence

from pytest_caretaker.project.files import SourceFile
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Edit, Proposal, Unparsed

_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_FILE_HINT = re.compile(r"^\s*#\s*(?:file|path)\s*:\s*(\S+\.py)\s*$", re.I | re.M)
_CODE_START = re.compile(r"^[ \t]*(?:@|def |async def |class |import |from \S+ import )", re.M)


def parse_reply(
    text: str,
    tool_arguments: Sequence[str],
    candidates: Sequence[Suspect],
    editable: Callable[[Suspect], bool],
    files: Callable[[str], SourceFile | None],
) -> Proposal | Unparsed:
    """Parse a reply; tool call arguments (JSON strings) take precedence over the text."""
    resolver = _Resolver(candidates, editable, files)
    try:
        if tool_arguments:
            return _parse_tool_calls(tool_arguments, resolver, text)
        return _parse_text(text, resolver)
    except (RecursionError, MemoryError):  # json, ast and libcst recurse on nesting
        return Unparsed("The reply is nested too deeply to parse; reply with ordinary Python.")


class _Resolver:
    def __init__(
        self,
        candidates: Sequence[Suspect],
        editable: Callable[[Suspect], bool],
        files: Callable[[str], SourceFile | None],
    ) -> None:
        self.candidates = candidates
        self.editable = [c for c in candidates if editable(c)]
        self.files = files

    def allowed(self) -> str:
        refs = [c.ref for c in self.editable[:6]] or [c.ref for c in self.candidates[:6]]
        return ", ".join(refs) if refs else "(none)"

    def resolve(self, name: str, path: str | None) -> tuple[str, str] | None:
        """(path, qualname) of the function called name (plain or qualified) in candidate files."""
        pool = self.editable + [c for c in self.candidates if c not in self.editable]
        if path is not None:
            pool = [c for c in pool if c.path == path]
        for candidate in pool:
            if candidate.qualname == name:
                return candidate.path, candidate.qualname
        for candidate in pool:
            if candidate.qualname.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1] and (
                "." not in name or candidate.qualname.endswith("." + name)
            ):
                return candidate.path, candidate.qualname
        # Not a candidate itself: a sibling method in a candidate's class, then any function of
        # that name in the candidates' files, top-level first.
        wanted: list[tuple[str, str]] = []
        for candidate in pool:
            owner, dot, _ = candidate.qualname.rpartition(".")
            if dot and "." not in name:
                wanted.append((candidate.path, f"{owner}.{name}"))
        paths = [path] if path is not None else list(dict.fromkeys(c.path for c in pool))
        wanted += [(rel, name) for rel in paths]
        for rel, qualname in wanted:
            source = self.files(rel)
            if source is not None and source.find(qualname) is not None:
                return rel, qualname
        if "." in name:
            return None
        for rel in paths:
            source = self.files(rel)
            for definition in source.definitions if source is not None else ():
                if definition.qualname.rsplit(".", 1)[-1] == name:
                    return rel, definition.qualname
        return None


def _parse_text(text: str, resolver: _Resolver) -> Proposal | Unparsed:
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
                f"```python block; the functions that may change: {resolver.allowed()}."
            )
        blocks = [text[start.start() :]]
        explanation = text[: start.start()].strip()
    edits: list[Edit] = []
    for block in blocks:
        parsed = _parse_code(block, None, None, resolver)
        if isinstance(parsed, Unparsed):
            return parsed
        edits.extend(parsed)
    return _finish(edits, explanation, resolver)


def _parse_tool_calls(
    arguments: Sequence[str], resolver: _Resolver, text: str
) -> Proposal | Unparsed:
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
            parsed = _parse_code(item["code"], path, function, resolver)
            if isinstance(parsed, Unparsed):
                return parsed
            edits.extend(parsed)
    explanation = " ".join(e for e in explanations if e).strip() or text.strip()
    return _finish(edits, explanation, resolver)


def _parse_code(
    code: str, path: str | None, function: str | None, resolver: _Resolver
) -> list[Edit] | Unparsed:
    hint = _FILE_HINT.search(code)
    if path is None and hint:
        path = hint.group(1).lstrip("./")
    source = textwrap.dedent(code.replace("\r\n", "\n")).strip("\n") + "\n"
    try:
        tree = ast.parse(source)
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
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    edits: list[Edit] = []
    if not defs and not classes:
        if imports and len(imports) == len(tree.body):
            pass  # only imports: they join the other edits
        else:
            return _body_edit(source, path, function, resolver)
    for node in defs:
        name = function if function is not None and len(defs) == 1 else node.name
        edits.append(_def_edit(node, source, name, path, resolver))
    for cls in classes:
        methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not methods:
            return Unparsed(f"class {cls.name} has no methods; reply with the methods to replace.")
        for node in methods:
            edits.append(_def_edit(node, source, f"{cls.name}.{node.name}", path, resolver))
    for statement in imports:
        text = ast.get_source_segment(source, statement) or ""
        edits.append(Edit("import", path or "", "", text))
    return edits


def _def_edit(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    source: str,
    name: str,
    path: str | None,
    resolver: _Resolver,
) -> Edit:
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    lines = source.splitlines()[start - 1 : node.end_lineno]
    text = textwrap.dedent("\n".join(lines)) + "\n"
    found = resolver.resolve(name, path)
    if found is None and path is not None and resolver.files(path) is None:
        # A file caretaker cannot read (outside the project, missing): the guard says why.
        return Edit("replace", path, name, text)
    if found is None:
        return Edit("helper", path or "", node.name, text)
    return Edit("replace", found[0], found[1], text)


def _body_edit(
    source: str, path: str | None, function: str | None, resolver: _Resolver
) -> list[Edit] | Unparsed:
    target = resolver.resolve(function, path) if function else None
    if target is None and resolver.editable:
        target = (resolver.editable[0].path, resolver.editable[0].qualname)
    if target is None:
        return Unparsed(
            "The reply holds no function definition. Reply with the complete corrected "
            f"definition (def ...) of one of: {resolver.allowed()}."
        )
    rel, qualname = target
    whole = Unparsed(f"Reply with the complete definition of {rel}::{qualname}, not its body.")
    file = resolver.files(rel)
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


def _finish(edits: list[Edit], explanation: str, resolver: _Resolver) -> Proposal | Unparsed:
    replaced = [e for e in edits if e.kind == "replace"]
    if not replaced:
        names = ", ".join(e.qualname for e in edits if e.kind == "helper") or "nothing"
        return Unparsed(
            f"The reply defines {names}, which matches no function of the code under test. "
            f"Reply with the complete corrected definition of one of: {resolver.allowed()}."
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
                f"it. Replace one of: {resolver.allowed()}."
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
