"""Test faults: whether a failure is the test's own, whatever code under test it ran first.

``assert slugify(x) == expeted`` runs slugify, then fails in the test's own line on a name the
test never defined: no edit of slugify can heal it, so a search of slugify's mutants or a model's
attempts are spent for nothing. A failure is the test's own when the innermost project frame is in
test code and the error names the test's own code: a name its line uses and nothing defines
(NameError), or an attribute its line asks of a test local that the local's type does not have,
where that type is the test code's own class or a builtin type with a near-miss of the name (a
typo: ``s.uper()``). An object the code under test returned as None, or of a class of the code
under test, is left to the repairers: the code under test may be what is wrong.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import re
from collections.abc import Container

from pytest_caretaker import syntax
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.results import Failure, Frame

_NAME = re.compile(r"(?:name|variable) '(\w+)'")
_ATTRIBUTE = re.compile(r"^'(\w+)' object has no attribute '(\w+)'")


def own_fault(failure: Failure, files: ProjectFiles, tests: Container[str]) -> str | None:
    """What in the test's own line fails, in words (``line 11 of test_x.py uses `expeted`, which
    is not defined``), when the failure is the test's own; None otherwise."""
    frame = failure.innermost
    if frame is None or frame.path not in tests:
        return None
    source = files.get(frame.path)
    try:
        tree = syntax.parse(source.data) if source is not None else None
    except (SyntaxError, ValueError):
        tree = None
    if tree is None:
        return None
    line = _line_nodes(tree, frame.lineno)
    where = f"line {frame.lineno} of {frame.path}"
    if failure.exc_type in ("NameError", "UnboundLocalError"):
        return _undefined(failure.message, tree, line, where)
    if failure.exc_type == "AttributeError":
        return _missing_attribute(failure.message, tree, line, frame, where)
    return None


def _line_nodes(tree: ast.Module, lineno: int) -> list[ast.AST]:
    """The nodes of the smallest statement that holds lineno (never a whole def or class)."""
    holding = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
        and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.lineno <= lineno <= (node.end_lineno or node.lineno)
    ]
    if not holding:
        return []
    smallest = min(holding, key=lambda node: (node.end_lineno or node.lineno) - node.lineno)
    return list(ast.walk(smallest))


def _undefined(message: str, tree: ast.Module, line: list[ast.AST], where: str) -> str | None:
    found = _NAME.search(message)
    if found is None:
        return None
    name = found.group(1)
    if not any(isinstance(node, ast.Name) and node.id == name for node in line):
        return None  # raised by code the line called (an eval, a library): not the line's own
    if any(isinstance(node, ast.ImportFrom) and node.names[0].name == "*" for node in tree.body):
        return None  # the code under test may be the one to define it, for the star import
    if "not defined" in message:
        return f"{where} uses `{name}`, which is not defined"
    return f"{where} uses `{name}` before it is assigned"


def _missing_attribute(
    message: str,
    tree: ast.Module,
    line: list[ast.AST],
    frame: Frame,
    where: str,
) -> str | None:
    found = _ATTRIBUTE.match(message)
    if found is None:
        return None
    kind, attribute = found.groups()
    local_names = {name for name, _ in frame.locals}
    locals_asked = [
        node.value.id
        for node in line
        if isinstance(node, ast.Attribute)
        and node.attr == attribute
        and isinstance(node.value, ast.Name)
        and node.value.id in local_names
    ]
    if not locals_asked:
        return None
    said = f"{where} asks `{locals_asked[0]}` (a {kind}) for `{attribute}`, which it does not have"
    if _defines_class(tree, kind):
        return said
    builtin = getattr(builtins, kind, None)
    if not isinstance(builtin, type):
        return None  # NoneType (what the code under test returned?) or a class of the project
    near = difflib.get_close_matches(attribute, [n for n in dir(builtin) if n[0] != "_"], 1)
    return f"{said} (did you mean `{near[0]}`?)" if near else None


def _defines_class(tree: ast.Module, name: str) -> bool:
    """Whether the test module defines a class of that name (the test code's own type)."""
    return any(isinstance(node, ast.ClassDef) and node.name == name for node in ast.walk(tree))
