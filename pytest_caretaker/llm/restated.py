"""Restated: whether code from a reply says what the project's code already says.

Models restate what they were shown: the class a function uses, the function next to the one they
fix, the function itself when they only meant to show it. Restated code is not a change, and is
left out of a fix rather than applied; so the comparison ignores what does not change behaviour,
docstrings and formatting. A docstring's doctest examples are a test, not prose: a reply that
changes them changes something (and the doctest guard judges it).
"""

from __future__ import annotations

import ast
import doctest
import textwrap

from pytest_caretaker import syntax

Function = ast.FunctionDef | ast.AsyncFunctionDef


def function_of(source: str | None) -> Function | None:
    """The one function source defines; a method whose strings hold lines less indented than
    its def (which dedent cannot strip) is read inside a block."""
    if source is None:
        return None
    for text in (source, "if True:\n" + source):
        try:
            body = syntax.parse(text).body
        except (SyntaxError, ValueError, RecursionError):
            continue
        if len(body) == 1 and isinstance(body[0], ast.If):
            body = body[0].body
        if len(body) == 1 and isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return body[0]
        return None
    return None


class _Docstrings(ast.NodeTransformer):
    def generic_visit(self, node: ast.AST) -> ast.AST:
        body = getattr(node, "body", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body:
            first = body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                examples = _examples(value.value)
                kept = [ast.Expr(ast.Constant(examples))] if examples else []
                node.body = kept + body[1:] or [ast.Pass()]
        return super().generic_visit(node)


def same(new: str, old: str | None) -> bool:
    """Whether new says what old says: the same code, docstrings and formatting aside."""
    if old is None:
        return False
    dumps = []
    for source in (new, old):
        node: ast.AST | None = function_of(source)
        if node is None:
            try:
                node = syntax.parse(textwrap.dedent(source))
            except (SyntaxError, ValueError, RecursionError):
                return False
        dumps.append(ast.dump(_Docstrings().visit(node)))
    return dumps[0] == dumps[1]


def _examples(docstring: str) -> str:
    """A docstring's doctest examples, each source and what it expects, whitespace aside."""
    try:
        found = doctest.DocTestParser().get_examples(docstring)
    except ValueError:  # a malformed example: the docstring as it is counts
        return docstring
    return "\n".join(f"{' '.join(e.source.split())}\0{' '.join(e.want.split())}" for e in found)
