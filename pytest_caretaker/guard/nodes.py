"""Nodes: how the weakening guard reads a function's syntax, the same way in every comparison.

What a call is called (pytest.approx and approx alike), a node quoted short enough for a
refusal sentence, which statements run only sometimes (a check under them may never run), and
what a test function is (def or async def).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

CONDITIONAL: tuple[type[ast.AST], ...] = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.Try)
CONDITIONAL += (ast.Match, ast.IfExp, *([ast.TryStar] if hasattr(ast, "TryStar") else []))
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

Function = ast.FunctionDef | ast.AsyncFunctionDef


def called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def shorten(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 80 else text[:77] + "..."


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function in source order, but not those of definitions nested in it."""
    stack = list(reversed(list(ast.iter_child_nodes(function))))
    while stack:
        node = stack.pop()
        if isinstance(node, NESTED):
            continue
        yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
