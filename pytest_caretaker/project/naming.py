"""Naming: what a failing test's name says it tests.

Tests are named for the code they test: ``test_hr.py::TestHorizontalRules::test_hr_after_emstrong``
tests ``HRProcessor``, ``TestEntities::test_hexadecimal_entities`` the ``ENTITY_RE`` pattern.
A class's data and a module's constants run at import, so no trace ranks them, and when every test
runs the whole program (each of a markdown converter's tests renders a document) the functions
that read them are no better ranked; the names still point there. So the data the failing tests
reached (the classes their functions ran on or belong to, the module-level assignments of the
files they ran) whose names share a word with the failing tests' names are suspects (``named``),
weighed by how rare the word is among the names of their kind reached: ``locale`` where every
class is a locale tells none apart, ``hr`` does. A function's own name is left to the spectrum
and the trace, which rank functions; the methods that ran of a class named follow it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.related import class_data
from pytest_caretaker.results import Executed

Key = tuple[str, str]  # (path, qualname)

#: Named suspects of each kind at most: names point to a neighbourhood, not to one definition.
PER_KIND = 3
KINDS = ("class", "constant")
#: Methods of the named classes that ran, at most.
METHODS = 3
#: Words that name no code: how tests are phrased, not what they test.
_PHRASING = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "if"}
    | {"in", "is", "it", "of", "on", "or", "should", "test", "tests", "testcase", "the", "to"}
    | {"when", "with"}
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def words(name: str) -> frozenset[str]:
    """The words of an identifier, lower case and singular: ``HRProcessor`` -> hr, processor;
    ``test_hexadecimal_entities`` -> hexadecimal, entity."""
    found = (_singular(word.lower()) for word in _WORD.findall(name))
    return frozenset(word for word in found if len(word) > 1 and word not in _PHRASING)


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def of_tests(nodeids: Iterable[str]) -> frozenset[str]:
    """The words of failing tests' names: the test file's, classes' and functions' (their
    parameters aside)."""
    found: set[str] = set()
    for nodeid in nodeids:
        path, *names = nodeid.split("[", 1)[0].split("::")
        found |= words(path.rpartition("/")[2].removesuffix(".py"))
        for name in names:
            found |= words(name)
    return frozenset(found)


def named(
    failing: Sequence[str],
    ran: Sequence[Key],
    executed: Mapping[str, Executed],
    sources: ProjectFiles,
    tests: TestFiles,
) -> list[Key]:
    """The definitions the failing tests reached whose names share the rarest words with the
    tests' names, best first: of each kind (class, constant) at most PER_KIND, those
    scoring at least half the best of their kind. A word weighs the more, the fewer names of
    the kind hold it; a name scores the weight of its words the tests hold over the root of its
    words' whole weight, as a cosine does: each word named counts, each word not named costs
    (``ShortReferenceInlineProcessor`` less than ``ReferenceInlineProcessor`` for
    ``test_reference_newlines``). Then the methods of those classes that ran, at most METHODS,
    in ran's order: markdown's ``test_inline_html_backslashes`` names ``HtmlInlineProcessor``,
    whose ``handleMatch`` the spectrum ranks below the escapes only that test ran."""
    wanted = of_tests(failing)
    entries = [
        (key, kind, words(name))
        for key, kind, name in _reached(failing, ran, executed, sources, tests)
    ]
    sizes = Counter(kind for _, kind, _ in entries)
    counts = Counter((kind, word) for _, kind, found in entries for word in found)
    best: dict[Key, tuple[str, float]] = {}
    for key, kind, found in entries:
        weights = {word: math.log((sizes[kind] + 1) / counts[(kind, word)]) for word in found}
        matched = sum(weights[word] for word in found & wanted)
        score = matched / math.sqrt(sum(weights.values())) if matched > 0 else 0.0
        if score > best.get(key, (kind, 0.0))[1]:
            best[key] = (kind, score)
    picked: list[Key] = []
    for kind in KINDS:
        ranked = sorted((key for key in best if best[key][0] == kind), key=lambda k: -best[k][1])
        top = best[ranked[0]][1] if ranked else 0.0
        picked += [key for key in ranked if best[key][1] >= top / 2][:PER_KIND]
    picked.sort(key=lambda key: -best[key][1])
    classes = {key for key in picked if best[key][0] == "class"}
    methods = [key for key in ran if (key[0], key[1].rpartition(".")[0]) in classes]
    return picked + methods[:METHODS]


def _reached(
    failing: Sequence[str],
    ran: Sequence[Key],
    executed: Mapping[str, Executed],
    sources: ProjectFiles,
    tests: TestFiles,
) -> list[tuple[Key, str, str]]:
    """(definition, kind, a name of it) for the functions the failing tests ran outside tests,
    the classes they ran on or are methods of (named by the class and by each of its
    class-level assignments: ``NEWLINE_CLEANUP_RE`` is the data of its class, shown with it),
    and the module-level assignments of their files."""
    code = {path for path in {path for path, _ in ran} if path not in tests}
    functions = [key for key in ran if key[0] in code]
    found: list[tuple[Key, str, str]] = []
    owners = [(key[0], key[1].rpartition(".")[0]) for key in functions if "." in key[1]]
    for nodeid in failing:
        run = executed.get(nodeid)
        owners += [cls for _, cls in run.classes] if run is not None else []
    for path, qualname in dict.fromkeys(owners):
        source = sources.get(path) if path in code or path not in tests else None
        if source is None or class_data(source, qualname) is None:
            continue
        found.append(((path, qualname), "class", qualname.rpartition(".")[2]))
        prefix = qualname + "."
        for definition in source.definitions:
            name = definition.qualname.removeprefix(prefix)
            if (
                definition.kind == "assignment"
                and definition.qualname.startswith(prefix)
                and "." not in name
            ):
                found.append(((path, qualname), "class", name))
    for path in dict.fromkeys(path for path, _ in functions):
        source = sources.get(path)
        for definition in source.definitions if source is not None else ():
            if definition.kind == "assignment" and "." not in definition.qualname:
                found.append(((path, definition.qualname), "constant", definition.qualname))
    return found
