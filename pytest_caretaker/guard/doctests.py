"""Guard: a function's doctest is a test. Its examples (``>>> call`` and the output it expects)
live in the code under test's docstring, so a fix of the code could "pass" a failing doctest by
rewriting what it expects; such a fix is refused like any edit of a test. Examples a fix adds, or
moves into the docstring unchanged (models move a file's trailing examples there), are not."""

from __future__ import annotations

import ast
import doctest
import inspect
import textwrap

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


def rewritten(ref: str, before: str | None, after: str, module: str | None = None) -> str | None:
    """Why an edit of code under test may not change its doctest, or None when it does not.

    Examples the fix adds, or moves into the docstring from elsewhere in the file (module), are
    allowed; an example that expects something else than it did, anywhere in the file, and one
    the fix removes from the docstring are not."""
    old, new = examples(before), examples(after)
    if old == new:
        return None
    known: dict[str, set[str]] = {}
    for source, want in (*old, *_anywhere(module)):
        known.setdefault(_normal(source), set()).add(_normal(want))
    for source, want in new:
        wanted = known.get(_normal(source))
        if wanted and _normal(want) not in wanted:
            return (
                f"the fix changes what the doctest example `{source.strip()[:60]}` in {ref} "
                f"expects; a doctest is a test, so fix the code it runs, not what it expects"
            )
    removed = [source for source, want in old if (source, want) not in new]
    if removed:
        return (
            f"the fix removes the doctest example `{removed[0].strip()[:60]}` from {ref}; a "
            "doctest is a test, keep every example"
        )
    return None


def _anywhere(text: str | None) -> Examples:
    """The doctest examples anywhere in a file: in any string (a trailing description) and in
    its comment lines."""
    if not text or ">>>" not in text:
        return ()
    try:
        tree = syntax.parse(text)
    except (SyntaxError, ValueError):
        return ()
    texts = [
        inspect.cleandoc(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>>" in node.value
    ]
    comments = [line.strip()[1:] for line in text.splitlines() if line.strip().startswith("#")]
    texts.append(textwrap.dedent("\n".join(line.removeprefix(" ") for line in comments)))
    found: list[tuple[str, str]] = []
    for each in texts:
        try:
            found += [(e.source, e.want) for e in doctest.DocTestParser().get_examples(each)]
        except ValueError:
            continue
    return tuple(found)


def _normal(text: str) -> str:
    return " ".join(text.split())
