"""Docstring examples: a fix that heals the tests while its function's own examples now fail.

A function whose docstring shows what it returns (doctest examples: ``>>> price(10, 1.0)``, then
``9.0``) states its behaviour. A fix that heals the failing test while one of those examples,
true of the original, comes out differently is ranked down: vetting.py keeps it aside and looks
on for a fix that agrees, and if none does, the fix is given with the example it contradicts
(the tests are the user's newer word; the docstring may be stale). An example the original gets
wrong too (the bug's own evidence, or a stale line) says nothing. Probe: a line put first in the
function's body that runs the examples once, in the module's namespace as the lead case left
it, and ends the test process with CHECKED plus a bit per failing example; once on the
candidate, once on the original. Numbers stated in prose ("orders of 10 or more") are
not read: only examples are checked.

The child's side (check) imports the standard library alone.
"""

from __future__ import annotations

import ast
import doctest
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pytest_caretaker.builtin.probing import exit_code, inserted

if TYPE_CHECKING:
    from pytest_caretaker.verify.trials import Trial

#: The check's exit code: CHECKED plus a bit per example that fails (the first MAX_EXAMPLES).
CHECKED = 128
MAX_EXAMPLES = 7
_running = False


def check(namespace: dict[str, Any], docstring: str) -> None:
    """The child's side: run docstring's examples (the first call only: they call the function
    again), then end the process with CHECKED plus a bit per example that failed."""
    global _running
    if _running:
        return
    _running = True
    examples = doctest.DocTestParser().get_examples(docstring)[:MAX_EXAMPLES]
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    runner = doctest.DocTestRunner(verbose=False, optionflags=flags)
    names, failed = dict(namespace), 0
    for index, example in enumerate(examples):
        test = doctest.DocTest([example], names, "docstring", None, 0, docstring)
        if runner.run(test, out=lambda _: None, clear_globs=False).failed:
            failed |= 1 << index
    os._exit(CHECKED + failed)


def contradiction(
    old: Sequence[str],
    new: Sequence[str],
    functions: tuple[
        ast.FunctionDef | ast.AsyncFunctionDef, ast.FunctionDef | ast.AsyncFunctionDef
    ],
    run: Callable[[str], Trial | None],
) -> str:
    """The first example of the edited function's docstring that holds with the original and
    not with the fix, as a clause; empty when there is none (or the lead case never calls it)."""
    docstring = ast.get_docstring(functions[1], clean=False)
    if not docstring or ">>>" not in docstring:
        return ""
    try:
        examples = doctest.DocTestParser().get_examples(docstring)[:MAX_EXAMPLES]
    except ValueError:  # not valid doctest text: it states nothing checkable
        return ""
    before, after = _probed(old, functions[0], docstring), _probed(new, functions[1], docstring)
    if not examples or before is None or after is None:
        return ""
    after_failed = exit_code(run(after)) - CHECKED
    if after_failed <= 0:  # every example holds, or the lead case never called the function
        return ""
    before_failed = exit_code(run(before)) - CHECKED
    if before_failed < 0:
        return ""
    made_false = after_failed & ~before_failed
    if not made_false:  # what fails failed with the original too: it says nothing of the fix
        return ""
    example = examples[(made_false & -made_false).bit_length() - 1]
    return (
        f"its docstring's example `{example.source.strip()}` (`{example.want.strip()}`) does not "
        "hold with it, and does with the original"
    )


def _probed(
    lines: Sequence[str], function: ast.FunctionDef | ast.AsyncFunctionDef, docstring: str
) -> str | None:
    """lines with the examples' check put before the statement after the docstring."""
    if len(function.body) < 2 or function.body[1].lineno <= function.body[0].lineno:
        return None
    call = f'__import__("importlib").import_module("{__name__}").check(globals(), {docstring!r})'
    return inserted(lines, function.body[1].lineno, call)
