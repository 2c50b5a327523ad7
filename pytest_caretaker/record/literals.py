"""Literals: the text a literal expression makes, and the signatures that match a call's
positional arguments to parameter names (code.py learns secrets through both)."""

from __future__ import annotations

import ast
from collections.abc import Mapping

#: What is called -> its parameters in order, from the defs and classes of the files read.
Signatures = Mapping[str, tuple[str, ...]]


def literal(node: ast.expr) -> str | None:
    """The text a literal expression makes: a string or bytes constant, a concatenation of them,
    an f-string of constants only; None for anything computed."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bytes):
            return node.value.decode("utf-8", "replace")
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal(node.left), literal(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
        return "".join(str(p) for p in parts) if len(parts) == len(node.values) else None
    return None


def signatures_of(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """Each def's and class's parameters in order (a class's: its __init__'s, else its
    annotated fields: a dataclass, a NamedTuple)."""
    found: dict[str, tuple[str, ...]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(node.name, _params(node.args))
        elif isinstance(node, ast.ClassDef):
            init = next((n for n in node.body if _named(n, "__init__")), None)
            if isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(node.name, _params(init.args))
            else:  # a dataclass, a NamedTuple, an attrs class: its annotated fields in order
                fields = [
                    n.target.id
                    for n in node.body
                    if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
                ]
                found.setdefault(node.name, tuple(fields))
    return found


def _named(node: ast.stmt, name: str) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name


def _params(args: ast.arguments) -> tuple[str, ...]:
    names = [arg.arg for arg in (*args.posonlyargs, *args.args)]
    return tuple(names[1:] if names[:1] in (["self"], ["cls"]) else names)
