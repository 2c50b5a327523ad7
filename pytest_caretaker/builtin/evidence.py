"""Evidence: what the failure says about the edit that fixes it, as weights on the ranking.

A failure is more than a red test. pytest's assertion introspection shows what came out against
what was expected, and the relation between the two names the kind of edit that makes one of the
other: the exact reverse (``'F1' == '1F'``) an operand order, a value off by one a bound, a missing
first or last element a bound of a slice or range, a sign flip a subtraction turned round, ten
times too much a magnitude, a swapped pair two arguments, ``None`` a wrong key or a lost value.
An exception names its own suspects: ``KeyError`` the keys, ``AttributeError`` the attributes,
``IndexError`` the indices and bounds, ``ZeroDivisionError`` the denominators (and the line that
divided), ``RecursionError`` the base case. Each relation or exception multiplies the prior of the
families that can produce it (``FAMILIES``), and the line that raised gets its own weight, so
those candidates are tried first; nothing is ever left out on the evidence alone.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import dataclass, field

from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.results import Failure
from pytest_caretaker.syntax import parse

#: The families each relation or exception points at, and by how much their prior grows.
FAMILIES: dict[str, dict[str, float]] = {
    "reversed": {"concat_swap": 4.0, "swap": 3.0, "builtin_pair": 1.5},
    "off_by_one": {"off_by_one": 2.5, "constant": 2.0, "comparison": 2.0},
    "length": {"off_by_one": 2.0, "comparison": 1.5, "constant": 1.5},
    "sign": {"arithmetic": 2.5, "swap": 2.5, "unwrap": 2.0},
    "magnitude": {"magnitude": 5.0, "arithmetic": 1.5},
    "swapped": {"swap": 3.0, "variable": 2.0, "attribute": 2.0, "key": 2.0},
    "none": {"key": 2.5, "attribute": 2.0, "variable": 1.5, "to_variable": 1.5},
    "KeyError": {"key": 4.0, "variable": 1.5},
    "AttributeError": {"attribute": 4.0, "variable": 1.5},
    "IndexError": {"off_by_one": 2.5, "constant": 2.0, "comparison": 2.0},
    "ZeroDivisionError": {"variable": 1.5, "off_by_one": 1.5, "comparison": 1.5},
    "RecursionError": {"comparison": 2.0, "constant": 2.0, "off_by_one": 2.0},
    "TypeError": {"swap": 2.0, "unwrap": 1.5, "variable": 1.5},
    "NameError": {"variable": 2.0, "insert": 2.0},
    "UnboundLocalError": {"variable": 2.0, "insert": 2.0},
}
#: The weight of a candidate on the line that raised (in code under test).
RAISING_LINE = 2.0


@dataclass(frozen=True)
class Evidence:
    """What the failing cases of one problem say: the relations their assertions show, their
    exception, and the line of code under test that raised."""

    signs: tuple[str, ...] = ()  # keys of FAMILIES
    raised: tuple[str, int] | None = None  # (path, line) of the innermost frame of the code
    weights: dict[str, float] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for sign in self.signs:
            for family, weight in FAMILIES.get(sign, {}).items():
                self.weights[family] = max(self.weights.get(family, 1.0), weight)

    def weight(self, mutant: Mutant) -> float:
        """How much likelier than its prior the evidence makes this candidate."""
        if mutant.needs and mutant.needs not in self.signs:
            return 0.0
        families = mutant.operator.split("+")
        found = max(self.weights.get(family, 1.0) for family in families)
        if self.raised is not None and self.raised == (mutant.path, mutant.line):
            found *= RAISING_LINE
        return found


def read(cases: Sequence[Failure], tests: Container[str] = ()) -> Evidence:
    """The evidence of a problem's failing cases: a sign counts when half of them show it."""
    counted: Counter[str] = Counter()
    for case in cases:
        counted.update(set(_signs(case)))
    signs = tuple(sign for sign, count in counted.items() if 2 * count >= len(cases))
    lead = cases[0] if cases else None
    raised = None
    if lead is not None and lead.exc_type != "AssertionError":
        code = [f for f in lead.frames if f.path != lead.path and f.path not in tests]
        raised = (code[-1].path, code[-1].lineno) if code else None
    return Evidence(signs, raised)


def _signs(case: Failure) -> list[str]:
    if case.exc_type in FAMILIES:
        return [case.exc_type]
    if case.exc_type != "AssertionError":
        return []
    compared = _compared(case.message)
    return relations(*compared) if compared is not None else []


def _compared(message: str) -> tuple[object, object] | None:
    """(left, right) of the ``assert left == right`` pytest's introspection shows, as values."""
    first = message.strip().split("\n", 1)[0]
    try:
        test = parse(first.strip()).body[0]
    except (SyntaxError, ValueError, IndexError):
        return None
    if not isinstance(test, ast.Assert) or not isinstance(test.test, ast.Compare):
        return None
    compare = test.test
    if len(compare.ops) != 1 or not isinstance(compare.ops[0], ast.Eq):
        return None
    try:
        return ast.literal_eval(compare.left), ast.literal_eval(compare.comparators[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def relations(actual: object, expected: object) -> list[str]:
    """How actual relates to expected, in the words of FAMILIES (either side may be either)."""
    if actual is None or expected is None:
        return ["none"]
    if isinstance(actual, bool) or isinstance(expected, bool):
        return []
    if isinstance(actual, (int, float)) and isinstance(expected, (int, float)):
        return _numbers(actual, expected)
    if isinstance(actual, (str, list, tuple)) and type(actual) is type(expected):
        return _sequences(actual, expected)
    return []


def _numbers(a: float, b: float) -> list[str]:
    found = []
    if abs(a - b) == 1:
        found.append("off_by_one")
    if a == -b and a:
        found.append("sign")
    if a and b and a != b:
        ratio = max(abs(a), abs(b)) / min(abs(a), abs(b))
        if any(abs(ratio - 10**k) < 1e-6 * 10**k for k in (1, 2, 3)):
            found.append("magnitude")
    return found


def _sequences(a: str | list[object] | tuple[object, ...], b: object) -> list[str]:
    assert isinstance(b, (str, list, tuple))
    found = []
    if len(a) > 1 and a != b and a == b[::-1]:
        found.append("reversed")
    short, long = sorted((a, b), key=len)
    if len(long) > 1 and len(long) - len(short) == 1 and short in (long[1:], long[:-1]):
        found.append("length")  # the first or the last element missing (or one too many)
    elif not found and len(a) == len(b) and sorted(map(repr, a)) == sorted(map(repr, b)):
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        if len(differ) == 2:
            found.append("swapped")
    return found
