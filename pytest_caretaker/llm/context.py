"""Context: the prompt material for one failure, within a size budget.

Function-level, not whole files: the failing test, the ranked candidate functions in full with the
lines that failed, the error and pytest's report, captured output, and the imports of the files.
The module- and class-level assignments the best suspects read (``VAT = 0.25``) and the data of
the classes their methods ran on (a class's head and its class-level assignments) follow them as
targets of their own, within counts of their own: a constant is one line, and a long list of
functions must not crowd out the one that is wrong. So does the read-only test code: the test and
its fixtures are the specification, not candidates for the fix's slots.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.project.related import class_data
from pytest_caretaker.results import Failure

#: About 4 characters a token: 32,000 characters keep a prompt near 8,000 tokens.
DEFAULT_BUDGET = 32_000
#: A definition longer than this is not shown (a fix must give it whole): 300-odd lines, about
#: 3,000 tokens (inflect's ``_sinoun``, the one function a fix of it changes, has 11,329).
MAX_FUNCTION = 12_000
#: Definitions of code under test shown at most, most suspicious first, while their characters
#: stay within CODE_CHARS (the first is always shown): a fix of real bugs often changes the
#: second or third function the failing test ran, ranked seventh or ninth by the evidence.
MAX_FUNCTIONS = 12
CODE_CHARS = 16_000
#: Read-only code shown at most (tests while only code may change): the failing test and the
#: fixtures and helpers it ran.
MAX_TESTS = 3
MAX_CONSTANTS = 6
#: Classes shown as their data (the head and class-level assignments): a subclass's data that a
#: base class's method read, and the class of a method shown.
MAX_CLASSES = 2
LIMITS = {
    "test": MAX_TESTS,
    "function": MAX_FUNCTIONS,
    "constant": MAX_CONSTANTS,
    "class": MAX_CLASSES,
}


@dataclass(frozen=True)
class FunctionContext:
    ref: str
    path: str
    qualname: str
    editable: bool
    is_test: bool
    code: str
    failed_lines: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class Context:
    test_id: str
    failing: str  # the opening sentence: "The test `x` fails.", or what the command did
    case: str  # "the test", or "the command"
    error: str
    report: str
    output: str
    locals: tuple[tuple[str, str], ...]
    functions: tuple[FunctionContext, ...]
    imports: tuple[tuple[str, tuple[str, ...]], ...]
    fence: str = "```"  # a code fence none of the material shown can close (fence_for)

    def as_vars(self) -> dict[str, object]:
        return {
            "test_id": self.test_id,
            "failing": self.failing,
            "case": self.case,
            "error": self.error,
            "report": self.report,
            "output": self.output,
            "locals": self.locals,
            "functions": self.functions,
            "imports": self.imports,
            "fence": self.fence,
        }


def build(
    failure: Failure,
    candidates: Sequence[Suspect],
    sources: ProjectFiles,
    editable: Callable[[Suspect], bool],
    budget: int = DEFAULT_BUDGET,
) -> Context:
    # A small window (a local model's) gets the end of the report and output, where the error is.
    report = _tail(failure.longrepr, budget // 3)
    output = _tail(failure.output, budget // 6)
    functions = _shown(candidates, sources, editable, budget - len(report) - len(output))
    innermost = failure.innermost
    imports = _imports(functions, sources)
    shown = [report, output, *(f.code for f in functions), *(i for _, ii in imports for i in ii)]
    return Context(
        test_id=failure.nodeid,
        failing=_opening(failure),
        case="the command" if failure.subject else "the test",
        error=f"{failure.exc_type}: {failure.message}".strip(),
        report=report,
        output=output,
        locals=innermost.locals if innermost is not None else (),
        functions=tuple(functions),
        imports=imports,
        fence=fence_for(*shown),
    )


def _shown(
    candidates: Sequence[Suspect],
    sources: ProjectFiles,
    editable: Callable[[Suspect], bool],
    room: int,
) -> list[FunctionContext]:
    """The definitions the prompt shows, in rank order, within room characters and the limits
    of their kind (LIMITS, CODE_CHARS); the first always, if it is not too long."""
    functions: list[FunctionContext] = []
    counts = dict.fromkeys(LIMITS, 0)
    used = code_chars = 0  # of everything shown; of the code under test shown
    classes: set[tuple[str, str]] = set()  # whose data is shown: not their constants again
    for candidate in candidates:
        source = sources.get(candidate.path)
        definition = source.find(candidate.qualname) if source is not None else None
        may_edit = editable(candidate)
        if source is None:
            continue
        if definition is None:  # a class whose data localize found (related.classes)
            kind, code = "class", class_data(source, candidate.qualname) or ""
        else:
            kind = "constant" if not definition.runs else "test" if not may_edit else "function"
            code = source.source_of(definition)
        owner = (candidate.path, candidate.qualname.rpartition(".")[0])
        if not code or (kind == "constant" and owner in classes):
            continue
        if counts[kind] >= LIMITS[kind] or len(code) > MAX_FUNCTION:
            continue
        if used + len(code) > room and functions:
            continue
        if kind == "function" and counts[kind] and code_chars + len(code) > CODE_CHARS:
            continue
        used += len(code)
        counts[kind] += 1
        classes |= {(candidate.path, candidate.qualname)} if kind == "class" else set()
        code_chars += len(code) if kind == "function" else 0
        failed = tuple(
            (line, source.lines[line - 1].strip())
            for line in candidate.failed_lines
            if 0 < line <= len(source.lines)
        )
        functions.append(
            FunctionContext(
                candidate.ref,
                candidate.path,
                candidate.qualname,
                may_edit,
                candidate.is_test,
                code,
                failed,
            )
        )
    return functions


def fence_for(*texts: str) -> str:
    """Backticks enough to fence every text: one more than the longest run of them inside, and
    at least three. A docstring's ```python example then cannot end the block early."""
    longest = max((len(run) for text in texts for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _imports(
    functions: Sequence[FunctionContext], sources: ProjectFiles
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The import lines (at most 30) of each file a function shown is in."""
    imports: list[tuple[str, tuple[str, ...]]] = []
    for path in dict.fromkeys(f.path for f in functions):
        source = sources.get(path)
        if source is not None:
            lines = tuple(line for line in source.lines if line.startswith(("import ", "from ")))
            imports.append((path, lines[:30]))
    return tuple(imports)


def _opening(failure: Failure) -> str:
    """The prompt's first sentence: what failed."""
    return failure.subject or f"The test `{failure.nodeid}` fails."


def _tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return "… (cut)\n" + text[-limit:]
