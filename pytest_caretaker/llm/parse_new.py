"""What a reply adds at module level besides definitions: new constants (``LIMIT = 5``) and
``if``/``try`` blocks that bind only names the project's file does not (``try: import
__builtin__ as builtins`` … ``except ImportError: import builtins``; ``if str is bytes: text =
unicode`` … ``else: text = str``). Each is a helper named by the first name it binds, kept when
the fix uses it (parse_finish) and added before the first definition the fix replaces. A block
that binds a name the file has already, or nothing, restates or changes module code: it is not
taken.

A property's setter or deleter (``@major.setter`` ``def major``) right after its getter is one
definition with it (``groups``): the two replace the property together, never the setter the
getter."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Collection, Sequence

from pytest_caretaker.project.names import bound_names

Function = ast.FunctionDef | ast.AsyncFunctionDef
ACCESSORS = ("setter", "deleter", "getter")


def new_constants(
    body: Sequence[ast.stmt], lines: Sequence[str], known: Collection[str]
) -> list[tuple[str, str]]:
    """(name, source) of the module-level assignments of body to a name not known: new
    constants."""
    found: list[tuple[str, str]] = []
    for node in body:
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            target = node.target
        if isinstance(node, ast.Assign) and len(node.targets) != 1:
            continue
        if isinstance(target, ast.Name) and target.id not in known:
            found.append((target.id, _text(lines, node)))
    return found


def new_blocks(
    body: Sequence[ast.stmt], lines: Sequence[str], bound: Collection[str]
) -> list[tuple[str, str]]:
    """(first name bound, source) of the module-level ``if``/``try`` blocks of body that bind
    names, none of them bound already, and hold nothing but imports, assignments and further
    such blocks."""
    found: list[tuple[str, str]] = []
    for node in body:
        if not isinstance(node, (ast.If, ast.Try)) or not _plain(node):
            continue
        names = list(dict.fromkeys(bound_names([node])))
        if names and not set(names) & set(bound):
            found.append((names[0], _text(lines, node)))
    return found


def _plain(node: ast.stmt) -> bool:
    """Whether a block holds only imports, assignments, pass and blocks like it."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.Pass)):
        return True
    if isinstance(node, ast.If):
        return all(_plain(n) for n in [*node.body, *node.orelse])
    if isinstance(node, ast.Try):
        handlers = [n for h in node.handlers for n in h.body]
        return all(_plain(n) for n in [*node.body, *handlers, *node.orelse, *node.finalbody])
    return False


def _text(lines: Sequence[str], node: ast.stmt) -> str:
    return textwrap.dedent("\n".join(lines[node.lineno - 1 : node.end_lineno])) + "\n"


def groups(body: Sequence[ast.stmt]) -> list[list[Function]]:
    """The functions of body in order, each with the accessors of its property that follow
    it directly (``@major.setter def major``)."""
    found: list[list[Function]] = []
    previous: ast.stmt | None = None
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if found and previous is found[-1][-1] and _accessor_of(node) == found[-1][0].name:
                found[-1].append(node)
            else:
                found.append([node])
        previous = node
    return found


def _accessor_of(node: Function) -> str | None:
    """The property a def is the setter, deleter or getter of (its own name), else None."""
    for decorator in node.decorator_list:
        if (
            isinstance(decorator, ast.Attribute)
            and decorator.attr in ACCESSORS
            and isinstance(decorator.value, ast.Name)
            and decorator.value.id == node.name
        ):
            return node.name
    return None
