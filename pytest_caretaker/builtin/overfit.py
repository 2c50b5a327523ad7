"""Overfit: a candidate that passes the tests for the wrong reason, found by probing it.

Three ways a one-token edit passes without fixing anything are common enough to check for every
fix found, each with a trial or two of the lead case (a few tens of milliseconds each):

- **Raised into the fallback.** The edited line now raises where the original did not on the
  same case, inside a ``try`` of its own function, whose ``except`` returns what the test wanted
  (``seq[n:]`` -> ``seq[n:] + 1``, ``text.rstrip("%")`` -> ``text.lstrip("%")`` before a
  ``float()``). Probe: the edited statement wrapped so that an exception it raises ends the test
  process with RAISED, once in the candidate and once in the original. Such a fix is refused.
- **The failing line skipped.** The line of code under test that raised is no longer reached (a
  guard inverted, an early return, a loop that breaks at once). Probe: the candidate with an exit
  (REACHED) put before that line. Such a fix is kept only when nothing else heals (and is then
  reported so, never written without ``--heal-partial``).
- **An example of its docstring made false** (docstring.py): ranked down, given only when no
  fix agrees with the examples, and then with the example named.

Probes need trials (a forked child that swaps the function's code in place); without them, or
for an edit they cannot swap (a constant, a decorator's argument), nothing is probed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from pytest_caretaker.builtin.docstring import contradiction
from pytest_caretaker.builtin.probing import exit_code, inserted
from pytest_caretaker.results import Candidate
from pytest_caretaker.syntax import parse
from pytest_caretaker.verify.trials import Trial

RAISED = 97
REACHED = 96
_EXIT = '__import__("os")._exit({})'

#: Runs the lead case on a new text of path, with qualname's code (first line: line) swapped.
Probe = Callable[[str, str, int, str], Trial | None]


@dataclass(frozen=True)
class Finding:
    """What probing a fix found: a reason to refuse it, or a note that it skips a line or
    contradicts its docstring."""

    refused: str = ""
    skipped: str = ""
    contradicts: str = ""  # a docstring example the fix makes false (docstring.py)


def examine(candidate: Candidate, probe: Probe, raised: tuple[str, int] | None) -> Finding:
    """Probe a fix of one function (anything else passes unprobed)."""
    if len(candidate.changes) != 1 or len(candidate.edits) != 1:
        return Finding()
    change, qualname = candidate.changes[0], candidate.edits[0].qualname
    try:
        before, after = change.before.decode(), change.after.decode()
    except UnicodeDecodeError:
        return Finding()
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    edited = next((i + 1 for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), 0)
    function = _function(new, qualname)
    if (
        not edited
        or function is None
        or not function.lineno <= edited <= (function.end_lineno or 0)
    ):
        return Finding()
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    run = partial(probe, change.path, qualname, first)
    refused = _raises_into_handler(old, new, edited, function, run)
    if refused:
        return Finding(refused=refused)
    if raised is not None and raised[0] == change.path:
        line = raised[1] + (len(new) - len(old) if raised[1] > edited else 0)
        marked = inserted(new, _statement_start(function, line), _EXIT.format(REACHED))
        if line != edited and marked is not None and exit_code(run(marked)) != REACHED:
            return Finding(skipped=f"line {line}, which raised, is no longer reached")
    original = _function(old, qualname)
    if original is None:
        return Finding()
    return Finding(contradicts=contradiction(old, new, (original, function), run))


def _raises_into_handler(
    old: list[str],
    new: list[str],
    edited: int,
    function: ast.AST,
    run: Callable[[str], Trial | None],
) -> str:
    statement = _guarded_statement(function, edited)
    if statement is None or len(new) < len(old):  # nothing raises from a deleted line
        return ""
    start, end = statement.lineno, statement.end_lineno or statement.lineno
    if exit_code(run(_wrapped(new, start, end))) != RAISED:
        return ""
    if len(old) == len(new) and exit_code(run(_wrapped(old, start, end))) == RAISED:
        return ""  # the original line raised on this case too: the handler was meant for it
    return (
        f"the edited line {edited} raises on the failing case, where the original did not, and "
        "its own function's except clause turns that into the expected result"
    )


def _function(lines: Sequence[str], qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def walk(nodes: list[ast.stmt], prefix: str) -> None:
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if prefix + node.name == qualname:
                    found.append(node)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    return found[0] if found else None


def _guarded_statement(function: ast.AST, line: int) -> ast.stmt | None:
    """The simple statement on line, if it is in the body of a try of function itself."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Try) or not node.handlers:
            continue
        for statement in _simple_statements(node.body):
            if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
                return statement
    return None


def _simple_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    found: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, (ast.If, ast.For, ast.While)):
            found += _simple_statements(statement.body) + _simple_statements(statement.orelse)
        elif isinstance(statement, ast.With):
            found += _simple_statements(statement.body)
        elif not hasattr(statement, "body"):  # a def, a class, a nested try: not this one's
            found.append(statement)
    return found


def _wrapped(lines: list[str], start: int, end: int) -> str:
    """lines with lines start..end in a try whose except ends the process with RAISED."""
    first = lines[start - 1]
    indent = first[: len(first) - len(first.lstrip())]
    newline = "\r\n" if first.endswith("\r\n") else "\n"
    body = [f"    {line}" if line.strip() else line for line in lines[start - 1 : end]]
    wrapper = [
        f"{indent}try:{newline}",
        *body,
        f"{indent}except BaseException:{newline}",
        f"{indent}    {_EXIT.format(RAISED)}{newline}",
    ]
    return "".join(lines[: start - 1] + wrapper + lines[end:])


def _statement_start(function: ast.AST, line: int) -> int:
    """The first line of the innermost statement of function that holds line (0: none)."""
    holding = [
        node.lineno
        for node in ast.walk(function)
        if isinstance(node, ast.stmt)
        and node is not function
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return max(holding, default=0)
