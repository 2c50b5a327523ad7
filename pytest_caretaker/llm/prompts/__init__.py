"""Prompt templates (Jinja2 files beside this module); the tools offered to models are tools.py's.

One folder of templates per strategy (``tools/``, ``text/``), chosen by what the model can do;
the rules every model must follow live in one shared template, rules.j2, included by both
system prompts, and the failure material in user.j2. ``--heal-prompt DIR`` puts a user's folder
in front: its ``tools/x.j2`` or ``text/x.j2``, else its ``x.j2``, else caretaker's.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pytest_caretaker.llm.tools import MAX_ROUNDS, SHOW_NAME, TOOL_NAME
from pytest_caretaker.llm.tools import TOOL as TOOL  # where the tests and older callers look


class PromptError(Exception):
    """A prompt template that cannot be used; str() says which and what to do."""


#: Strategies, each a folder of templates: tool calling, and a plain-text block format for models
#: without it. A template missing from a strategy's folder is taken from the shared ones.
STRATEGIES = ("tools", "text")

#: The variables each template is rendered with (docs/pages/prompts.md). rules.j2 is
#: included by system.j2 and sees the same ones.
VARIABLES: dict[str, frozenset[str]] = {
    "system": frozenset({"scope", "tools", "tool_name", "show_name", "show_rounds"}),
    "rules": frozenset({"scope", "tools", "tool_name", "show_name", "show_rounds"}),
    "user": frozenset(
        {
            *("test_id", "failing", "case", "error", "report", "output", "locals"),
            *("functions", "imports", "fence"),
            *("tools", "tool_name"),
        }
    ),
    "retry": frozenset({"reason", "detail", "attempt", "fence", "tools", "tool_name"}),
}


@cache
def _environment(folder: str | None) -> Any:
    import jinja2

    package = jinja2.PackageLoader("pytest_caretaker.llm", "prompts")
    loader: Any = package
    if folder is not None:
        loader = jinja2.ChoiceLoader([jinja2.FileSystemLoader(folder), package])
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def _names(name: str, tools: bool) -> list[str]:
    """Where a template is looked up, in order: the strategy's folder, then the shared one."""
    return [f"{'tools' if tools else 'text'}/{name}.j2", f"{name}.j2"]


def _choose(name: str, tools: bool, folder: str | None) -> str:
    """The template to use: the user's folder first (strategy, then shared), then caretaker's."""
    candidates = _names(name, tools)
    if folder is not None:
        for candidate in candidates:
            if (Path(folder) / candidate).is_file():
                return candidate
    for candidate in candidates:
        if (Path(__file__).parent / candidate).is_file():
            return candidate
    raise PromptError(f"no template {name}.j2")  # caretaker's own folder always has one


def render(name: str, tools: bool, folder: str | None = None, **variables: object) -> str:
    """Render a template for a model with or without tool calling (``tools``)."""
    import jinja2

    chosen = _choose(name, tools, folder)
    # A code fence: the material's own (context.fence_for) when it holds backticks.
    values = {"tools": tools, "tool_name": TOOL_NAME, "fence": "```"}
    values.update(show_name=SHOW_NAME, show_rounds=MAX_ROUNDS, **variables)
    try:
        text = _environment(folder).get_template(chosen).render(**values)
    except Exception as error:  # a template is code: any error it raises is the template's
        where = f"{folder}/{chosen}" if folder is not None else chosen
        kind = "" if isinstance(error, jinja2.TemplateError) else f"{type(error).__name__}: "
        raise PromptError(f"the prompt template {where} failed: {kind}{error}") from None
    return str(text).strip() + "\n"


def check_folder(folder: str, where: str = "--heal-prompt") -> None:
    """Check a --heal-prompt folder before the run: every template in it is one caretaker
    renders, parses, uses only the variables caretaker provides, and renders with sample values.
    Raises PromptError naming where the folder was given (``where``), the file and what to do."""
    root = Path(folder)
    if not root.is_dir():
        raise PromptError(f"{where} {folder} is not a folder of templates")
    found = _templates(root)
    if not found:
        raise PromptError(
            f"{where} {folder} has no templates; add any of system.j2, user.j2, "
            "retry.j2, rules.j2 (or tools/… and text/… for one strategy)"
        )
    try:
        environment = _environment(str(root))
        for relative in found:
            _check_template(environment, folder, relative)
        for name in ("system", "user", "retry"):
            for tools in (True, False):
                try:
                    render(name, tools, str(root), **SAMPLE[name])
                except PromptError as error:
                    sample = "with sample values; see docs/pages/prompts.md"
                    raise PromptError(f"{error} ({sample})") from None
    except PromptError as error:
        raise PromptError(f"{where}: {_printable(str(error))}") from None


def _templates(root: Path, depth: int = 2) -> list[str]:
    """The ``*.j2`` names under root (files or not: a folder so named is refused by name), as
    relative POSIX paths, at most depth folders down. Links are followed, as the loader follows
    them, but a folder already seen (a link back up: a loop) is not walked again."""
    found: list[str] = []
    seen: set[str] = set()
    for top, folders, files in os.walk(root, followlinks=True):
        relative = Path(top).relative_to(root)
        if os.path.realpath(top) in seen:
            folders.clear()
            continue
        seen.add(os.path.realpath(top))
        names = (*files, *folders)
        found += [(relative / name).as_posix() for name in names if name.endswith(".j2")]
        if len(relative.parts) >= depth:
            folders.clear()
    return sorted(found)


def _printable(text: str) -> str:
    """text with what a non-UTF-8 file name left in it (lone surrogates) shown as U+FFFD."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _check_template(environment: Any, folder: str, relative: str) -> None:
    """One template of a --heal-prompt folder: where it is, its name, its syntax and the
    variables it uses, each checked before it is ever rendered."""
    name = Path(relative).stem
    where = f"{folder}/{relative}"
    if Path(relative).parent.as_posix() not in (".", *STRATEGIES):
        raise PromptError(
            f"{where} is in a folder caretaker does not read; templates go in {folder} "
            f"itself or in its {' or '.join(s + '/' for s in STRATEGIES)}"
        )
    if name not in VARIABLES:
        raise PromptError(
            f"{where} is not a template caretaker uses; the templates are "
            f"{', '.join(n + '.j2' for n in VARIABLES)}"
        )
    used = _variables(environment, where, _read(Path(folder) / relative, where))
    unknown = sorted(used - VARIABLES[name])
    if unknown:
        raise PromptError(
            f"{where} uses {', '.join(unknown)}, which caretaker does not provide; "
            f"{name}.j2 gets {', '.join(sorted(VARIABLES[name]))}"
        )


def _read(path: Path, where: str) -> str:
    """A template's text; a folder, a device, a link loop or bytes that are not UTF-8 are
    refused with what to do, as the loader would fail on them later."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            kind = "a folder" if path.is_dir() else "not a regular file"
            raise PromptError(f"{where} is {kind}; a template is a text file: rename or remove it")
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise PromptError(
            f"{where} is not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset "
            f"{error.start}); save it as UTF-8"
        ) from None
    except OSError as error:
        raise PromptError(f"{where} cannot be read: {error.strerror or error}") from None


def _variables(environment: Any, where: str, source: str) -> set[str]:
    """The variables a template uses; parsing and compiling it finds its syntax errors and the
    filters and tests Jinja2 does not have."""
    import jinja2
    import jinja2.meta

    try:
        return set(jinja2.meta.find_undeclared_variables(environment.parse(source)))
    except jinja2.TemplateSyntaxError as error:  # TemplateAssertionError included
        hint = ""
        if error.message and error.message.startswith("No filter named"):
            hint = "; caretaker's templates have Jinja2's built-in filters only"
        message = (error.message or "").rstrip(".")
        raise PromptError(f"{where} line {error.lineno}: {message}{hint}") from None
    except RecursionError:
        raise PromptError(f"{where} is nested too deeply for Jinja2; simplify it") from None


@dataclass(frozen=True)
class _SampleFunction:
    ref: str = "pkg/calc.py::mean"
    path: str = "pkg/calc.py"
    qualname: str = "mean"
    editable: bool = True
    is_test: bool = False
    code: str = "def mean(values):\n    return sum(values) / (len(values) - 1)\n"
    failed_lines: tuple[tuple[int, str], ...] = ((2, "return sum(values) / (len(values) - 1)"),)


#: Values of every variable, for checking a user's templates before the run.
SAMPLE: dict[str, dict[str, object]] = {
    "system": {"scope": "code"},
    "user": {
        "test_id": "tests/test_calc.py::test_mean",
        "failing": "The test `tests/test_calc.py::test_mean` fails.",
        "case": "the test",
        "error": "AssertionError: assert 3.0 == 2.0",
        "report": "E   assert 3.0 == 2.0",
        "output": "",
        "locals": (("values", "[1, 2, 3]"),),
        "functions": (_SampleFunction(),),
        "imports": (("pkg/calc.py", ("import math",)),),
        "fence": "```",
    },
    "retry": {
        "reason": "still fails",
        "detail": "E   assert 2.5 == 2.0",
        "attempt": 1,
        "fence": "```",
    },
}
