"""Rank: every mutant on a line the failing tests ran, best first.

By each line's Ochiai score over all the failing cases of the problem against its passing tests
(``project/localize.py``), times the edit's prior and what the failure told of it
(evidence.py). Mutants are generated per function (mutate.py), once a session: generating them
counts as the search's work (work.py), and a function whose generation the budget cut short is
generated again, in full, for the next problem that has budget to spare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_caretaker.builtin import mutate
from pytest_caretaker.builtin.evidence import Evidence
from pytest_caretaker.builtin.mutate import Mutant
from pytest_caretaker.builtin.reach import Vocabulary
from pytest_caretaker.builtin.work import Work
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.project.files import Definition, ProjectFiles, SourceFile
from pytest_caretaker.project.localize import line_scores
from pytest_caretaker.results import Executed

#: Each function's mutants, by (path, qualname, the failure's words): generated once a session.
Made = dict[tuple[str, str, Vocabulary], list[Mutant]]


def ranked(
    made: tuple[ProjectFiles, Editable, Made],
    nodeid: str,
    executed: Mapping[str, Executed],
    regression: Sequence[str],
    others: Sequence[str] = (),
    told: Evidence | None = None,
    words: Vocabulary | None = None,
    work: Work | None = None,
) -> list[Mutant]:
    """Every mutant of the project's files (made: the files, what may be edited, the mutants
    generated so far) on a line the failing test nodeid ran, best first (others: the problem's
    other failing cases); attributes and keys may take the failure's words (vocabulary.py)."""
    files, editable, cache = made
    told = told if told is not None else Evidence()
    words = words if words is not None else Vocabulary()
    scores = line_scores(list(dict.fromkeys([nodeid, *others])), regression, executed)
    scored: list[tuple[float, int, Mutant]] = []
    for path in sorted({path for path, _ in scores}):
        source = files.get(path)
        # Never a test: an edit that makes a test pass by changing the test (deleting its
        # assert, say) is no fix. Models may edit tests under --heal-scope; this does not.
        if source is None or path in editable.tests or not editable.path(path):
            continue
        for definition in mutate.outermost(source):
            lines = range(definition.start, definition.end + 1)
            if not any((path, line) in scores for line in lines):
                continue
            for mutant in _generated(cache, source, definition, words, work):
                score = scores.get((path, mutant.line), 0.0) * mutant.prior
                score *= told.weight(mutant)
                if score > 0:
                    scored.append((score, len(scored), mutant))
    scored.sort(key=lambda item: (-item[0], item[1]))
    # A constant read by two suspect functions is mutated with each: one try per edit.
    seen: set[tuple[str, int, int, str]] = set()
    best: list[Mutant] = []
    for _, _, mutant in scored:
        edit = (mutant.path, mutant.start, mutant.end, mutant.replacement)
        if edit not in seen:
            seen.add(edit)
            best.append(mutant)
    return best


def _generated(
    cache: Made, source: SourceFile, definition: Definition, words: Vocabulary, work: Work | None
) -> list[Mutant]:
    """The mutants of one definition, generated once (those found in time, when work ends it)."""
    key = (source.path, definition.qualname, words)
    found = cache.get(key)
    if found is None:
        go_on = work.generating if work is not None else None
        found = mutate.mutants(source, definition, words, go_on)
        if work is None or not work.over():  # all of them: worth keeping
            cache[key] = found
    return found
