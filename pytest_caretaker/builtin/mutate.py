"""Mutate: every single-edit variant of one function, as text edits of its file.

A function's source is cut out of its file and dedented (cut.py), so that a method parses on its
own, and parsed with libcst once. One pass over its body (sites.py) finds where each operator
(operators.py) applies and which statement line each place belongs to; each proposal, and each
deletion or insertion of a whole statement, then becomes a ``Mutant`` (edits.py): a text edit
(start, end, replacement) of the file's text. A candidate file is then one string splice away,
never a regeneration of the module, and every byte outside the edited node stays as it was. A
mutant that does not compile is dropped (compiles.py: its statement is compiled, not the whole
function). Generation can be told to stop (``go_on``): the budget counts it (work.py).

A module- or class-level assignment is a unit too: a lambda bound to a name is mutated like a
function, and a constant's value gets the literal edits (literals.py) as well. A constant runs at
import, before any test, so the trace never shows it: the constants of its own file a function
reads (``project/reads.py``) are mutated with the function, each mutant reported on the line that
reads the constant, which the failing test ran, so that the repairer ranks it by that line. So are
the module-level statements that change such a name (``RATES.update(gold=0.3)``, reads.changers),
as candidates that only a fresh import can verify (``in_place=False``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from itertools import chain

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from pytest_caretaker.builtin.cut import NEWLINE, Cut, indentation
from pytest_caretaker.builtin.edits import Builder, Mutant, node_edit, statement_edits
from pytest_caretaker.builtin.families import CLASS_ATTRIBUTES, Families
from pytest_caretaker.builtin.reach import Reach, Vocabulary
from pytest_caretaker.builtin.sites import Sites
from pytest_caretaker.builtin.vocabulary import of_module
from pytest_caretaker.project.files import Definition, SourceFile
from pytest_caretaker.project.reads import changers, reads

__all__ = ["Mutant", "function_source", "mutants", "outermost"]


def outermost(source: SourceFile) -> tuple[Definition, ...]:
    """Top-level functions, methods and module- and class-level assignments: the units whose
    code the repairer replaces."""
    found = source.definitions
    return tuple(
        d
        for d in found
        if not any(o is not d and o.start <= d.start and d.end <= o.end for o in found)
    )


def mutants(
    source: SourceFile,
    definition: Definition,
    vocabulary: Vocabulary | None = None,
    go_on: Callable[[], bool] | None = None,
) -> list[Mutant]:
    """Every single-edit mutant of one function (duplicates removed), in the order found, then
    those of the constants of its file that it reads. Attributes and keys may become those of
    the module and of vocabulary (the failure's: reach.py). go_on is asked before each; once it
    says no, those found so far."""
    constant = definition.kind != "function" and not definition.lambdas
    words = of_module(source) | (vocabulary or Vocabulary())
    found = _mutants(source, definition, literals=constant, vocabulary=words, go_on=go_on)
    if not definition.runs:
        return found
    return found + _constants(source, definition, go_on) + _decorations(source, definition, go_on)


def _decorations(
    source: SourceFile, definition: Definition, go_on: Callable[[], bool] | None
) -> list[Mutant]:
    """The mutants of the arguments the function's decorators are called with (``@rounded(1)``,
    evaluated once, when the function is defined), on the line of its body's first statement."""
    header = source.lines[definition.start - 1 : definition.end]
    if definition.kind != "function" or not header or not header[0].lstrip().startswith("@"):
        return []
    found: list[Mutant] = []
    for mutant in _mutants(source, definition, literals=True, decorators=True, go_on=go_on):
        line = source.text.count("\n", 0, mutant.start) + 1
        said = f"{mutant.description} in the decorator of {definition.qualname} (line {line}),"
        said += " whose body starts"
        found.append(replace(mutant, description=said, in_place=False))
    return found


def _constants(
    source: SourceFile, definition: Definition, go_on: Callable[[], bool] | None
) -> list[Mutant]:
    """The mutants of the file's constants the definition reads, on the line that reads each."""
    found: list[Mutant] = []
    own = {source.path: source}.get
    for (_, qualname), line in reads(source, definition, own).items():
        for target in source.definitions:
            if target.qualname != qualname or target.kind == "function" or target.lambdas:
                continue  # a lambda runs, and its own lines rank its mutants
            for mutant in _mutants(source, target, literals=True, go_on=go_on):
                said = f"{mutant.description} in {qualname} (line {mutant.line}), read"
                found.append(replace(mutant, line=line, description=said))
        for statement in changers(source, qualname) if "." not in qualname else ():
            # It ran at import: only a fresh import of the candidate shows its effect.
            for mutant in _mutants(source, statement, literals=True, go_on=go_on):
                said = f"{mutant.description} in the statement on line {statement.start}, which"
                said += f" changes {qualname}, read"
                found.append(replace(mutant, line=line, description=said, in_place=False))
    return found


def _mutants(
    source: SourceFile,
    definition: Definition,
    literals: bool,
    decorators: bool = False,
    vocabulary: Vocabulary | None = None,
    go_on: Callable[[], bool] | None = None,
) -> list[Mutant]:
    cut = Cut.of(source, definition)
    if cut is None:
        return []
    module = _parsed(cut.text)
    if module is None:
        return []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    sites = Sites(module, cut.text_lines, literals, decorators)
    wrapper.visit(sites)
    families = Families(module, {} if literals else _class_attributes(source, definition))
    wrapper.visit(families)
    reach = Reach(vocabulary or Vocabulary())
    if vocabulary is not None and not literals:
        wrapper.visit(reach)
    positions = wrapper.resolve(PositionProvider)
    built = Builder(source.path, definition.qualname, cut, go_on)
    found = chain(
        sites.replacements(),
        () if literals else chain(families.replacements(), reach.replacements()),
    )
    for proposed in found:
        if built.stopped:
            return built.found
        replacement = families.tidy(proposed)
        if replacement is None:
            continue
        start, end, new = node_edit(cut, module, positions[replacement.node], replacement)
        built.add(
            replacement.line,
            replacement.operator,
            replacement.prior,
            start,
            end,
            new,
            replacement.needs,
        )
    copies = sites.copies
    for block in sites.blocks:
        if built.stopped:
            break
        statement_edits(block, copies, cut, built)
    return built.found


def _class_attributes(source: SourceFile, definition: Definition) -> dict[str, list[str]]:
    """For a method, the attributes of ``self`` its class names anywhere (not called ones)."""
    if not definition.method:
        return {}
    owner = definition.qualname.rpartition(".")[0] + "."
    found: dict[str, None] = {}
    for other in source.definitions:
        if other.qualname.startswith(owner):
            text = "\n".join(source.lines[other.start - 1 : other.end])
            found.update(dict.fromkeys(_SELF_ATTRIBUTE.findall(text)))
    return {"self": list(found)[:CLASS_ATTRIBUTES]}


_SELF_ATTRIBUTE = re.compile(r"\bself\.([A-Za-z_]\w*)\b(?!\s*\()")


def function_source(source: SourceFile, mutant: Mutant) -> str:
    """The dedented source of the mutant's whole function (or assignment), as an Edit replaces
    it."""
    # X = … and X += … share a name: the one the edit is in (an insertion may start on the line
    # after the last).
    edited = len(NEWLINE.findall(source.text, 0, mutant.start)) + 1
    named = [d for d in source.definitions if d.qualname == mutant.function]
    named += [] if mutant.in_place else changers(source, mutant.function)
    inside = [d for d in named if d.start <= edited <= d.end]
    inside += [d for d in named if edited == d.end + 1]
    if not named:
        raise ValueError(f"{source.path} has no function {mutant.function}")
    definition = (inside or named)[0]
    before = source.text[mutant.start : mutant.end]
    delta = len(NEWLINE.findall(mutant.replacement)) - len(NEWLINE.findall(before))
    text = mutant.apply(source.text)
    lines = NEWLINE.split(text)
    newlines = [*NEWLINE.findall(text), ""]
    chunk = [
        lines[index] + newlines[index]
        for index in range(definition.start - 1, definition.end + delta)
    ]
    indent = indentation(chunk[0])
    return "".join(line[len(indent) :] if line.startswith(indent) else line for line in chunk)


def _parsed(text: str) -> cst.Module | None:
    try:
        return cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return None
