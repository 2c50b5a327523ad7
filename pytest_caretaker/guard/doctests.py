"""Guard: a function's doctest is a test. Its examples (``>>> call`` and the output it expects)
live in the code under test's docstring, so a fix of the code could "pass" a failing doctest by
rewriting what it expects; such a fix is refused like any edit of a test."""

from __future__ import annotations

import ast
import doctest

from pytest_caretaker import syntax

Examples = tuple[tuple[str, str], ...]


def examples(source: str | None) -> Examples:
    """The doctest examples (source, expected output) of every docstring in source."""
    if not source:
        return ()
    try:
        tree = syntax.parse(source)
    except (SyntaxError, ValueError):
        return ()
    parser = doctest.DocTestParser()
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            text = ast.get_docstring(node, clean=True)
            if text and ">>>" in text:
                try:
                    found += [(e.source, e.want) for e in parser.get_examples(text)]
                except ValueError:  # a malformed example: compare the text itself
                    found.append((text, ""))
    return tuple(found)


def rewritten(ref: str, before: str | None, after: str) -> str | None:
    """Why an edit of code under test may not change its doctest, or None when it does not."""
    if examples(before) == examples(after):
        return None
    return (
        f"the fix changes the doctest examples in the docstring of {ref}; a doctest is a test, "
        "so fix the code it runs, not what it expects"
    )
