"""Nodes: the statements a definition's replacement may be, and the slot each one fills.

A definition is replaced by a function or by a line that assigns its one name; a property's
getter by the getter and the setter or deleter defs that follow it in the new source
(``accessors``). ``X = …`` and
``X: T = …`` fill X's "binding" slot, as a ``def X`` does; ``X += …`` fills its "augmented" slot:
it changes X without defining it, so it replaces an augmented assignment, never X's definition.
"""

from __future__ import annotations

import libcst as cst

#: The new statement of a replaced definition: a function, or a one-line assignment.
New = cst.FunctionDef | cst.ClassDef | cst.SimpleStatementLine
#: A definition by its qualified name and its slot: "binding" (a def or an ``=`` / annotated
#: assignment: the one that defines the name) or "augmented" (an ``X += …`` of that name).
Key = tuple[str, str]


def bound_name(statement: cst.SimpleStatementLine) -> tuple[str, str] | None:
    """(name, slot) of a line that only assigns one name: ``X = …`` and ``X: T = …`` bind it,
    ``X += …`` is its "augmented" slot; None for any other line."""
    if len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
    elif isinstance(small, cst.AugAssign) or (
        isinstance(small, cst.AnnAssign) and small.value is not None
    ):
        target = small.target
    else:
        return None
    if not isinstance(target, cst.Name):
        return None
    return target.value, "augmented" if isinstance(small, cst.AugAssign) else "binding"


def parse_new(source: str, name: str) -> New | None:
    """The first function of source (or a class called name, given whole), else its one
    statement when it assigns name."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            return statement
        if isinstance(statement, cst.ClassDef) and statement.name.value == name:
            return statement
    if len(module.body) == 1 and isinstance(module.body[0], cst.SimpleStatementLine):
        bound = bound_name(module.body[0])
        if bound is not None and bound[0] == name:
            return module.body[0]
    return None


def slot(new: New) -> str:
    bound = bound_name(new) if isinstance(new, cst.SimpleStatementLine) else None
    return bound[1] if bound is not None else "binding"


def accessors(source: str) -> list[cst.FunctionDef]:
    """The setter, deleter or getter defs of the property that the first function of source
    is, following it (``@major.setter def major``); empty for anything else."""
    try:
        body = cst.parse_module(source).body
    except cst.ParserSyntaxError:
        return []
    functions = [s for s in body if isinstance(s, cst.FunctionDef)]
    if not functions:
        return []
    name = functions[0].name.value
    found: list[cst.FunctionDef] = []
    for statement in functions[1:]:
        if not is_accessor(statement, name):
            break
        blank = [line.with_changes(indent=False) for line in statement.leading_lines]
        found.append(statement.with_changes(leading_lines=blank))  # no indent on a blank line
    return found


def is_accessor(node: cst.FunctionDef, name: str) -> bool:
    """Whether node is ``@name.setter`` (or deleter, getter) ``def name``."""
    return node.name.value == name and any(
        isinstance(d.decorator, cst.Attribute)
        and isinstance(d.decorator.value, cst.Name)
        and d.decorator.value.value == name
        and d.decorator.attr.value in ("setter", "deleter", "getter")
        for d in node.decorators
    )
