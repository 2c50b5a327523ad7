"""The built-in repairer's two-edit candidates (builtin/search.py)."""

from __future__ import annotations

from pytest_caretaker.builtin import mutate
from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import phrase
from pytest_caretaker.builtin.search import pairs
from pytest_caretaker.project.files import SourceFile

SOURCE = """\
def between(x, low, high):
    return x > low and x > high


def other(y):
    return y > 1
"""


def single(source: SourceFile, function: str) -> list[Mutant]:
    definition = source.find(function)
    assert definition is not None
    return mutate.mutants(source, definition)


def test_a_pair_applies_both_of_its_edits() -> None:
    source = SourceFile("rng.py", SOURCE.encode())
    ranked = single(source, "between")
    low = next(m for m in ranked if m.description == "`x > low` → `x >= low`")
    high = next(m for m in ranked if m.description == "`x > high` → `x <= high`")

    (pair,) = pairs([high, low], lambda path: source.text)

    assert pair.apply(source.text) == low.apply(high.apply(source.text))
    assert "return x >= low and x <= high" in pair.apply(source.text)
    assert pair.description == "`x > high` → `x <= high` on line 2 and `x > low` → `x >= low`"
    assert phrase(pair.operator) == "comparison and comparison"
    assert pair.prior == high.prior * low.prior


def test_pairs_are_of_one_function_without_overlap_best_ranked_first() -> None:
    source = SourceFile("rng.py", SOURCE.encode())
    ranked = single(source, "between") + single(source, "other")

    found = pairs(ranked, lambda path: source.text, top=len(ranked))

    assert found
    text = source.text
    for pair in found:
        assert pair.function in ("between", "other")
        assert pair.apply(text) != text
        compile(pair.apply(text), "rng.py", "exec")  # both edits, still Python
    # No pair joins edits of two functions, or two overlapping edits: each is two edits apart.
    assert all(pair.apply(text) for pair in found)
    combinable = [
        (i + j, i, a, b)
        for i, a in enumerate(ranked)
        for j, b in enumerate(ranked)
        if i < j and a.function == b.function and (a.end <= b.start or b.end <= a.start)
    ]
    assert len(found) == len(combinable)
    # The pair of the two best-ranked edits that combine comes first.
    _, _, a, b = min(combinable, key=lambda item: (item[0], item[1]))
    earlier, later = sorted((a, b), key=lambda m: (m.start, m.end))
    assert found[0].apply(text) == earlier.apply(later.apply(text))
