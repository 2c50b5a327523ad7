"""Multi-line strings of a replaced definition, kept byte for byte when the fix left them alone.

A fix's source is dedented (Edit), and so are the lines of its multi-line strings: a method's
docstring arrives four spaces left of where it was. libcst indents the new definition's
statements to their place but keeps a string token as it is, so applied as it came the fix would
rewrite every line of the docstring but its first. A string of the new definition that reads like
one of the old once indented to the definition's place (blank lines aside) is that old string,
verbatim; a string the fix changed otherwise stays as the fix wrote it.
"""

from __future__ import annotations

import libcst as cst

from pytest_caretaker.apply.nodes import New


class Indenting(cst.CSTTransformer):
    """A transformer that knows the indent of the block it is in (``indent``)."""

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default  # the module's
        self.indents: list[str] = []  # of the blocks the visit is in

    @property
    def indent(self) -> str:
        return "".join(self.indents)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        self.indents.append(self.default if node.indent is None else node.indent)
        return True

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        self.indents.pop()
        return updated


def restored(new: New, original: cst.CSTNode, indent: str) -> New:
    """new, its multi-line strings that only lost indent to dedenting replaced by original's."""
    if not indent:
        return new
    old: dict[str, str] = {}
    original.visit(_Collect(old))
    if not old:
        return new
    replaced = new.visit(_Restore(old, indent))
    kinds = (cst.FunctionDef, cst.ClassDef, cst.SimpleStatementLine)
    return replaced if isinstance(replaced, kinds) else new


def _key(value: str) -> str:
    """value with its whitespace-only lines emptied (dedenting empties them)."""
    return "\n".join(line if line.strip() else "" for line in value.split("\n"))


def _indented(value: str, indent: str) -> str:
    first, *rest = value.split("\n")
    return "\n".join([first, *(indent + line if line.strip() else line for line in rest)])


class _Collect(cst.CSTVisitor):
    def __init__(self, found: dict[str, str]) -> None:
        super().__init__()
        self.found = found

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if "\n" in node.value:
            self.found.setdefault(_key(node.value), node.value)


class _Restore(cst.CSTTransformer):
    def __init__(self, old: dict[str, str], indent: str) -> None:
        super().__init__()
        self.old, self.indent = old, indent

    def leave_SimpleString(
        self, original: cst.SimpleString, updated: cst.SimpleString
    ) -> cst.SimpleString:
        if "\n" not in updated.value:
            return updated
        value = updated.value  # as it was (the fix kept its indent), or as it was once indented
        was = self.old.get(_key(value)) or self.old.get(_key(_indented(value, self.indent)))
        return updated if was is None else updated.with_changes(value=was)
