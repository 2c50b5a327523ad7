"""Naming: what a failing test's name says it tests.

Tests are named for the code they test: ``tests/test_hr.py::TestHorizontalRules::test_hr_after_emstrong``
tests ``HRProcessor``, ``TestEntities::test_hexadecimal_entities`` the ``ENTITY_RE`` pattern. When
every test runs the whole program (a markdown converter's tests each render a document), the spectrum
cannot tell the code under test from the rest, and a constant read once at import leaves no trace
at all; the names still can. So the definitions the failing tests reached (the functions they ran,
the classes those ran on, the module-level assignments of the files they ran) that share a word
with the failing tests' names are suspects (``named``), weighed by how rare the word is among
them: ``html`` in a module where every class handles HTML says little, ``hr`` much.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.related import class_data
from pytest_caretaker.results import Executed

Key = tuple[str, str]  # (path, qualname)

#: Named suspects at most: names point to a neighbourhood, not to one definition.
NAMED = 6
#: Words that name no code: how tests are phrased, not what they test.
_PHRASING = frozenset(
    "a an and are as at be by can do does for from if in is it of on or should "
    "test tests testcase the to when with".split()
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
    tests' names, best first, at most NAMED: those scoring at least half the best."""
    wanted = of_tests(failing)
    reached = _reached(failing, ran, executed, sources, tests)
    named_words = {key: words(key[1].rpartition(".")[2]) for key in reached}
    counts: dict[str, int] = {}
    for found in named_words.values():
        for word in found:
            counts[word] = counts.get(word, 0) + 1
    total = len(named_words)
    scores = {
        key: sum(math.log(total / counts[word]) for word in found & wanted)
        for key, found in named_words.items()
    }
    best = max(scores.values(), default=0.0)
    ranked = sorted((key for key in reached if scores[key] > 0), key=lambda key: -scores[key])
    return [key for key in ranked if scores[key] >= best / 2][:NAMED]


def _reached(
    failing: Sequence[str],
    ran: Sequence[Key],
    executed: Mapping[str, Executed],
    sources: ProjectFiles,
    tests: TestFiles,
) -> list[Key]:
    """The functions the failing tests ran outside tests, the classes they ran on or are
    methods of, and the module-level assignments of their files."""
    found = [key for key in ran if key[0] not in tests]
    classes = [(key[0], key[1].rpartition(".")[0]) for key in found if "." in key[1]]
    for nodeid in failing:
        run = executed.get(nodeid)
        classes += [cls for _, cls in run.classes] if run is not None else []
    for path, qualname in dict.fromkeys(classes):
        source = sources.get(path) if path not in tests else None
        if source is not None and class_data(source, qualname) is not None:
            found.append((path, qualname))
    for path in dict.fromkeys(path for path, _ in found):
        source = sources.get(path)
        for definition in source.definitions if source is not None else ():
            if definition.kind == "assignment" and "." not in definition.qualname:
                found.append((path, definition.qualname))
    return list(dict.fromkeys(found))
