"""The built-in repairer's two-edit candidates (builtin/search.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_caretaker.builtin import mutate
from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import phrase
from pytest_caretaker.builtin.search import Scan, pairs
from pytest_caretaker.problem import Problem, Task
from pytest_caretaker.project.files import SourceFile
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import Failure

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


class Limited:
    """A searcher that only tells its trials' limit, and remembers which tests it was for."""

    name = "builtin"
    trials = None

    def __init__(self) -> None:
        self.tested: list[list[str]] = []

    def trial_limit(self, tests: Sequence[str]) -> float:
        self.tested.append(list(tests))
        return 1.0

    def run_limit(self, baseline_seconds: float) -> float:
        return 5.0


def hung(nodeid: str, timed_out: bool) -> Failure:
    message = "Timeout (>5.0s) from pytest-timeout." if timed_out else "assert 1 == 2"
    kind = "Failed" if timed_out else "AssertionError"
    return Failure(nodeid, "call", "test_p.py", kind, message, "", ())


@pytest.mark.parametrize("timed_out", [True, False], ids=["hung", "failed"])
def test_a_problem_whose_lead_hung_trials_its_second_case_too(timed_out: bool) -> None:
    # A candidate that ends the lead's loop only is stopped by the trial (each case it leaves
    # hanging would cost the proof its whole limit); cases that fail fast go to the proof,
    # where one that heals some of them is kept as a partial fix.
    cases = tuple(hung(f"test_p.py::test_f[{n}]", timed_out) for n in range(3))
    problem = Problem(cases, regression=("test_p.py::test_ok",))
    task = Task(problem, (), {}, 0.1, lambda proposal: None, Transcript("x"))  # type: ignore[arg-type,return-value]
    searcher = Limited()

    scan = Scan(searcher, task, 0.0, 10.0)  # type: ignore[arg-type]

    second = ["test_p.py::test_f[1]"] if timed_out else []
    assert scan.tests == ["test_p.py::test_f[0]", *second, "test_p.py::test_ok"]
    assert searcher.tested == [scan.tests]
