"""Apply: replace exactly the named definitions with libcst; every other byte stays as it was.

libcst keeps comments, blank lines, quotes, the encoding and the newline style of the file; the new
definition takes the leading comments and blank lines of the one it replaces, and keeps its
decorators unless the new source brings its own. A definition is a function or method, or a
module- or class-level assignment to one name (``VAT = 0.2``, ``RATE: float = 0.2``, ``area =
lambda …``): a new assignment replaces that statement, keeping the line's comment unless it brings
its own; a new ``X += …`` replaces the first augmented assignment to X at that level, never the
assignment that defines X. A ``def`` may replace a lambda's assignment and the other way round.
A new method of a class (a helper edit named ``Class.method``) goes last in the class's body.
Results are values: FileChange or NotApplied.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Sequence

import libcst as cst

from pytest_caretaker.apply.additions import Helper, add_statements, helper_of
from pytest_caretaker.apply.nodes import Key, New, bound_name, is_accessor, parse_new, slot
from pytest_caretaker.apply.nodes import accessors as nodes_accessors
from pytest_caretaker.apply.strings import Indenting, restored
from pytest_caretaker.results import Edit, FileChange, NotApplied


class _Replace(Indenting):
    def __init__(
        self,
        replacements: dict[Key, New],
        methods: dict[str, list[Helper]],
        indent: str,
        accessors: dict[str, list[cst.FunctionDef]],
    ) -> None:
        super().__init__(indent)
        self.replacements = replacements
        self.accessors = accessors  # a property's setter/deleter given with its getter
        self.methods = methods  # new methods, by their class's qualname
        self.stack: list[tuple[str, bool]] = []  # (name, whether it is a function)
        self.done: set[Key] = set()
        self.extended: set[str] = set()  # classes the new methods went into

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.stack.append((node.name.value, False))
        return True

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> New:
        qualname = ".".join(name for name, _ in self.stack)
        self.stack.pop()
        if isinstance(self.replacements.get((qualname, "binding")), cst.ClassDef):
            whole = self._take((qualname, "binding"))  # a class given whole replaces it
            if whole is not None:
                return self._placed(restored(whole, original, self.indent), original)
        new = self.methods.get(qualname)
        body = updated.body
        if not new or qualname in self.extended or not isinstance(body, cst.IndentedBlock):
            return updated
        self.extended.add(qualname)  # a new method goes last in its class, a blank line before
        spaced = [m.with_changes(leading_lines=[cst.EmptyLine(indent=False)]) for m in new]
        return updated.with_changes(body=body.with_changes(body=[*body.body, *spaced]))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.stack.append((node.name.value, True))
        # Into its body only for a definition nested in it: a function's own statements are
        # never replaced, and its body is most of a module's nodes.
        inside = ".".join(name for name, _ in self.stack) + "."
        return any(qualname.startswith(inside) for qualname, _ in self.replacements)

    def _take(self, key: Key) -> New | None:
        """The replacement of key, the first time it is asked for."""
        new = self.replacements.get(key)
        if new is None or key in self.done:
            return None
        self.done.add(key)
        return new

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> New | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        qualname = ".".join(name for name, _ in self.stack)
        self.stack.pop()
        planned = self.replacements.get((qualname, "binding"))
        if isinstance(planned, cst.ClassDef):
            return updated  # a class never replaces a function
        if _overload(original) and not (
            isinstance(planned, cst.FunctionDef) and _overload(planned)
        ):
            return updated  # a typing.overload stub: the implementation below is the one
        new = self._take((qualname, "binding"))
        extra = self.accessors.get(qualname, [])
        if new is None and extra and is_accessor(original, original.name.value):
            return cst.RemovalSentinel.REMOVE  # the property's old setter: the new one replaces it
        if new is None:
            return updated
        placed = self._placed(restored(new, original, self.indent), original)
        if not extra:
            return placed
        return cst.FlattenSentinel([placed, *(restored(a, original, self.indent) for a in extra)])

    def _placed(self, new: New, original: cst.FunctionDef | cst.ClassDef) -> New:
        """new where original was: its leading lines, and its decorators unless new has some."""
        if isinstance(new, cst.SimpleStatementLine):  # `f = lambda …` in place of `def f`
            return new.with_changes(leading_lines=original.leading_lines)
        body, was = new.body, original.body
        if isinstance(body, cst.IndentedBlock) and isinstance(was, cst.IndentedBlock):
            # Lines after the last statement that libcst gives to the block (a whitespace-only
            # line, a comment indented like the body): not part of the function the fix saw.
            footer = body.footer or was.footer
            new = new.with_changes(body=body.with_changes(footer=footer))
        if new.decorators:
            return new.with_changes(leading_lines=original.leading_lines)
        return new.with_changes(
            leading_lines=original.leading_lines,
            decorators=original.decorators,
            lines_after_decorators=original.lines_after_decorators,
        )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> New:
        bound = bound_name(original)
        if bound is None or any(function for _, function in self.stack):
            return updated  # not an assignment to one name, or a function's own statement
        name, slot = bound
        new = self._take((".".join([*(n for n, _ in self.stack), name]), slot))
        if new is None:
            return updated
        new = restored(new, original, self.indent)
        if isinstance(new, (cst.FunctionDef, cst.ClassDef)):  # `def area` for `area = lambda …`
            return new.with_changes(leading_lines=original.leading_lines)
        kept = original.trailing_whitespace
        if new.trailing_whitespace.comment is None and kept.comment is not None:
            # The line's comment stays unless the fix brings its own.
            return new.with_changes(leading_lines=original.leading_lines, trailing_whitespace=kept)
        return new.with_changes(leading_lines=original.leading_lines)


def apply_edits(path: str, before: bytes, edits: Sequence[Edit]) -> FileChange | NotApplied:
    """Apply every edit for one file to its original bytes."""
    try:
        module = cst.parse_module(before)
    except cst.ParserSyntaxError as error:
        return NotApplied(f"{path} could not be parsed: {error.message}")
    parsed = _parse_edits(edits)
    if isinstance(parsed, NotApplied):
        return parsed
    replacements, methods, helpers, imports = parsed
    accessors = {
        e.qualname: found
        for e in edits
        if e.kind == "replace" and (found := nodes_accessors(e.source))
    }
    transformer = _Replace(replacements, methods, module.default_indent, accessors)
    updated = module.visit(transformer)
    missing = sorted(set(replacements) - transformer.done)
    if missing:
        qualname, where = missing[0]
        new = replacements[missing[0]]
        if isinstance(new, cst.ClassDef):
            return NotApplied(
                f"the new source of {path}::{qualname} is a class, not a function definition, "
                f"and {path} has no class {qualname} to replace"
            )
        return NotApplied(f"{path} has no {_missing(qualname, where, new)}")
    lost = sorted(set(methods) - transformer.extended)
    if lost:
        return NotApplied(f"{path} has no class {lost[0]} to add a method to")
    qualnames = sorted({qualname for qualname, _ in replacements} | set(methods))
    updated = add_statements(updated, helpers, imports, first_target=qualnames)
    try:
        after = updated.bytes
    except UnicodeEncodeError:
        return NotApplied(
            f"the fix uses characters that {path}'s encoding ({module.encoding}) lacks"
        )
    try:
        compile(after, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return NotApplied(f"{path} does not compile after the edit: {error}")
    return FileChange(path, before, after)


def _missing(qualname: str, slot: str, new: New) -> str:
    name = qualname.rsplit(".", 1)[-1]
    if slot == "augmented":
        return f"augmented assignment to {qualname} ({name} op= …) to replace"
    if isinstance(new, cst.FunctionDef):
        return f"function {qualname} to replace"
    return f"assignment {qualname} (or function of that name) to replace"


_Parsed = tuple[
    dict[Key, New], dict[str, list[Helper]], list[Helper], list[cst.SimpleStatementLine]
]


def _parse_edits(edits: Sequence[Edit]) -> _Parsed | NotApplied:
    """The edits as nodes: definitions replaced by name, new methods by class, helpers to add,
    imports to add."""
    replacements: dict[Key, New] = {}
    methods: dict[str, list[Helper]] = {}
    helpers: list[Helper] = []
    imports: list[cst.SimpleStatementLine] = []
    for edit in edits:
        if edit.kind == "import":
            try:
                statement = cst.parse_statement(edit.source)
            except cst.ParserSyntaxError:
                return NotApplied(f"the import {edit.source.strip()!r} does not parse")
            if isinstance(statement, cst.SimpleStatementLine):
                imports.append(statement)
            continue
        name = edit.qualname.rsplit(".", 1)[-1]
        node = parse_new(edit.source, name)
        if edit.kind == "helper" and (helper := helper_of(edit.source)) is not None:
            if "." in edit.qualname:  # Class.method: a new method of the project's class
                methods.setdefault(edit.qualname.rsplit(".", 1)[0], []).append(helper)
            else:
                helpers.append(helper)
        elif node is None or edit.kind == "helper":
            return NotApplied(
                f"the new source of {edit.ref} is not a function definition "
                f"(nor an assignment to {name}"
                + (", nor one class)" if edit.kind == "helper" else ")")
            )
        else:
            replacements[(edit.qualname, slot(node))] = node
    return replacements, methods, helpers, imports


def merge(path: str, before: bytes, afters: Sequence[bytes]) -> bytes | None:
    """before with the changes of every version in afters, or None when they do not combine.

    Each version's changes are its differing line ranges against before. Identical changes count
    once; two changes of overlapping lines, or two insertions at one place, do not combine, and
    neither does a result that does not compile.
    """
    lines = before.splitlines(keepends=True)
    changes: dict[tuple[int, int], list[bytes]] = {}
    for after in afters:
        new = after.splitlines(keepends=True)
        matcher = difflib.SequenceMatcher(None, lines, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if changes.setdefault((i1, i2), new[j1:j2]) != new[j1:j2]:
                return None  # the same lines changed two ways
    ranges = sorted(changes)
    for (a1, a2), (b1, b2) in itertools.pairwise(ranges):
        if b1 < a2 or (b1 == a2 and (a1 == a2 or b1 == b2)):
            return None  # overlapping, or an insertion where the other change starts or ends
    out: list[bytes] = []
    at = 0
    for i1, i2 in ranges:
        out += lines[at:i1] + changes[(i1, i2)]
        at = i2
    merged = b"".join(out + lines[at:])
    if path.endswith(".py"):
        try:
            compile(merged, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return None
    return merged


def unified_diff(applied: FileChange) -> bytes:
    """A diff that ``git apply`` accepts, in the file's own bytes (encoding and newlines kept)."""
    path = applied.path.encode("utf-8", "surrogateescape")  # a file name that is not UTF-8
    lines = difflib.diff_bytes(
        difflib.unified_diff,
        applied.before.splitlines(keepends=True),
        applied.after.splitlines(keepends=True),
        b"a/" + path,
        b"b/" + path,
        n=3,
    )
    out = [b"diff --git a/" + path + b" b/" + path + b"\n"]
    for index, line in enumerate(lines):
        if index < 2:  # the ---/+++ header; a content line may start with -- or ++ too
            out.append(line.rstrip(b"\r\n") + b"\n")
        elif line.endswith(b"\n"):
            out.append(line)
        else:
            out.append(line + b"\n\\ No newline at end of file\n")
    return b"".join(out)


def _overload(node: cst.FunctionDef) -> bool:
    """Whether a function is a ``typing.overload`` stub."""
    for decorator in node.decorators:
        name = decorator.decorator
        if isinstance(name, cst.Attribute):
            name = name.attr
        if isinstance(name, cst.Name) and name.value == "overload":
            return True
    return False
