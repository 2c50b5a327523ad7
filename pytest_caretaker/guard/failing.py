"""Failing: what the guard knows of the failing tests, to tell a fix from a special case.

The sources of the failing tests' functions (decorators, so parametrize cases, included) and the
exceptions they failed with, read once per proposal by ``failing(problem, files)``. The guard
takes the literals of those sources as the test's inputs and expected values (special.py).
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from functools import cached_property

from pytest_caretaker import syntax
from pytest_caretaker.problem import Problem
from pytest_caretaker.project.files import ProjectFiles


@dataclass(frozen=True)
class Failing:
    sources: tuple[str, ...] = ()  # each failing test's function, decorators included
    exceptions: tuple[str, ...] = ()  # the exception type each failed with
    paths: frozenset[str] = frozenset()  # the failing tests' files (a doctest's: its module)

    @cached_property
    def literals(self) -> frozenset[str]:
        """The telling literals of the failing tests (their keys, see key)."""
        found: set[str] = set()
        for source in self.sources:
            try:
                tree = syntax.parse(source)
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                continue
            for node in ast.walk(tree):
                literal = key(node)
                if literal is not None:
                    found.add(literal)
        return frozenset(found)


def failing(problem: Problem, files: ProjectFiles) -> Failing:
    """The failing tests of a problem, as the guard reads them."""
    sources: list[str] = []
    for case in problem.cases:
        source = files.get(case.path)
        parts = case.nodeid.split("::")[1:]
        qualname = ".".join(parts).split("[", 1)[0]
        definition = source.find(qualname) if source is not None and qualname else None
        if source is not None and definition is not None:
            sources.append(textwrap.dedent(source.source_of(definition)))
    exceptions = tuple(dict.fromkeys(case.exc_type for case in problem.cases))
    return Failing(tuple(sources), exceptions, frozenset(case.path for case in problem.cases))


def key(node: ast.AST) -> str | None:
    """A literal's identity ("42", "'abc'", "[1, 2]"), or None when it is not a telling one."""
    if not isinstance(node, (ast.Constant, ast.UnaryOp, ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if value is None or isinstance(value, bool) or value == "" or value == b"":
        return None
    if isinstance(value, (int, float, complex)) and abs(value) <= 1:
        return None
    if isinstance(value, (list, tuple, set, dict, frozenset)) and not value:
        return None
    return repr(value)
