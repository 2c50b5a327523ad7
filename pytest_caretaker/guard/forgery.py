"""Forgery: refuse a candidate that could forge its own verdict, before any of it runs.

A fix that reaches into the verifier, pytest or the interpreter (pytest's or caretaker's modules,
sys.modules, gc, ctypes, stack frames, trace hooks, signals, a function's __code__ or globals,
code built at run time) or that defines a comparison method (``__eq__``, ``__lt__``, ...) that
says yes without comparing the object with the other (equality.py) could make a failing test
report a pass. Whatever scope, whatever file (code, test or conftest), such a candidate is
refused with a sentence the model can act on. Code under test (not a test or a conftest) may not
use stand-ins either: ``unittest.mock``/``mock`` (``ANY``, ``sentinel``, ``Mock``, ``patch``),
``pytest_mock``, ``dirty_equals``, ``pytest.approx``: values that take the place of the one a
test checks. Only what the edit adds counts: a function that already used gc or sys.modules (or
mock) stays editable, and so does its use.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Mapping, Sequence

from pytest_caretaker import syntax
from pytest_caretaker.guard.equality import is_comparison
from pytest_caretaker.guard.names import STAND_IN, aliases
from pytest_caretaker.guard.reach import Found, reaches
from pytest_caretaker.results import Edit

_OWN = "a fix may not reach into pytest, caretaker or the interpreter"
_EQUAL = "compare the object's fields with those of the other instead (self.x == other.x)"
_REAL = "code under test must compute the value a test checks"


def forgery(
    edits: Sequence[Edit],
    original: Callable[[Edit], str | None],
    module: Callable[[str], str | None] | None = None,
    tests: Container[str] = (),
) -> str | None:
    """The first thing an edit reaches that the code it replaces did not, as a refusal;
    tests: the paths of test code (test files, conftests), where stand-ins are allowed."""
    imported = _imported(edits, module)
    for edit in edits:
        tree = _parse(edit.source)
        if tree is None:
            continue  # the applier refuses it with its own reason
        names = imported.get(edit.path, {})
        before = _before(edit, edits, original, module, names)
        code = edit.path not in tests
        added = {
            key: why
            for key, why in reaches(tree, names).items()
            if key not in before and (code or not key.startswith(STAND_IN))
        }
        if added:
            key, why = next(iter(added.items()))
            where = edit.ref if edit.kind != "import" else edit.path
            if is_comparison(key):
                return f"the fix in {where} defines {why}; {_EQUAL}"
            if key.startswith(STAND_IN):
                return f"the fix in {where} uses {why}; {_REAL}"
            return f"the fix in {where} uses {why}; {_OWN}"
    return None


def _parse(source: str | None) -> ast.Module | None:
    if source is None:
        return None
    try:
        return syntax.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _imported(
    edits: Sequence[Edit], module: Callable[[str], str | None] | None
) -> dict[str, dict[str, str]]:
    """Per file: what each name imported there stands for (the file's imports, the edits')."""
    found: dict[str, dict[str, str]] = {}
    for path in dict.fromkeys(edit.path for edit in edits):
        names: dict[str, str] = {}
        text = _parse(module(path)) if module is not None else None
        if text is not None:
            top = ast.Module(
                [s for s in text.body if isinstance(s, (ast.Import, ast.ImportFrom))], []
            )
            names.update(aliases(top))
        for edit in edits:
            tree = _parse(edit.source) if edit.path == path and edit.kind == "import" else None
            if tree is not None:
                names.update(aliases(tree))
        found[path] = names
    return found


def _before(
    edit: Edit,
    edits: Sequence[Edit],
    original: Callable[[Edit], str | None],
    module: Callable[[str], str | None] | None,
    names: Mapping[str, str],
) -> Found:
    """What the code an edit replaces already reached. An import is judged against the file's
    own imports, or, when the file is not known, against the functions replaced beside it (a
    model that keeps a function using gc often repeats its `import gc`)."""
    if edit.kind == "replace":
        tree = _parse(original(edit))
        return reaches(tree, names) if tree is not None else {}
    if edit.kind != "import":
        return {}
    text = _parse(module(edit.path)) if module is not None else None
    if text is not None:
        imports: list[ast.stmt] = [
            s for s in text.body if isinstance(s, (ast.Import, ast.ImportFrom))
        ]
        return reaches(ast.Module(imports, []), names)
    found: Found = {}
    for other in edits:
        tree = _parse(original(other)) if other.kind == "replace" else None
        if other.path == edit.path and tree is not None:
            found.update(reaches(tree, names))
    return found
