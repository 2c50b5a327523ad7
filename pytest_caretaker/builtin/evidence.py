"""Evidence: what the failure says about the edit that fixes it, as weights on the ranking.

A failure is more than a red test. pytest's assertion introspection shows what came out against
what was expected, and the relation between the two names the kind of edit that makes one of the
other: the exact reverse (``'F1' == '1F'``) an operand order, a value off by one a bound, a missing
first or last element a bound of a slice or range, a sign flip a subtraction turned round, ten
times too much a magnitude, a swapped pair two arguments, ``None`` a wrong key or a lost value.
An exception names its own suspects: ``KeyError`` the keys, ``AttributeError`` the attributes,
``IndexError`` the indices and bounds, ``ZeroDivisionError`` the denominators (and the line that
divided), ``RecursionError`` the base case. A case that ran out of time (pytest-timeout raises
where the code was looping) names the loop: its condition and the lines in its body that update
a name the condition reads. Each relation or exception multiplies the prior of the families that
can produce it (``FAMILIES``), and the line that raised (or the loop's lines) gets its own weight,
so those candidates are tried first; nothing is ever left out on the evidence alone.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Container, Sequence
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
    # A loop that never ends: a bound or a step off by one, an update that does not advance.
    "timeout": {"off_by_one": 2.5, "arithmetic": 2.0, "comparison": 1.5, "constant": 1.5},
}
#: The weight of a candidate on the line that raised (in code under test).
RAISING_LINE = 2.0
#: With a timeout, the weight of a candidate on the loop's condition or one of its updates.
LOOP_LINE = 2.0


@dataclass(frozen=True)
class Evidence:
    """What the failing cases of one problem say: the relations their assertions show, their
    exception, and the line of code under test that raised."""

    signs: tuple[str, ...] = ()  # keys of FAMILIES
    raised: tuple[str, int] | None = None  # (path, line) of the innermost frame of the code
    loop: frozenset[tuple[str, int]] = frozenset()  # a hang's loop condition and updates
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
        elif (mutant.path, mutant.line) in self.loop:
            found *= LOOP_LINE
        return found


def read(
    cases: Sequence[Failure],
    tests: Container[str] = (),
    text_of: Callable[[str], str | None] = lambda path: None,
) -> Evidence:
    """The evidence of a problem's failing cases: a sign counts when half of them show it.
    text_of gives a file's text (for the loop a hanging case was stopped in)."""
    counted: Counter[str] = Counter()
    for case in cases:
        counted.update(set(_signs(case)))
    signs = tuple(sign for sign, count in counted.items() if 2 * count >= len(cases))
    hung = [case for case in cases if case.timed_out]
    lead = hung[0] if hung else cases[0] if cases else None
    raised = None
    if lead is not None and lead.exc_type != "AssertionError":
        code = [f for f in lead.frames if f.path != lead.path and f.path not in tests]
        raised = (code[-1].path, code[-1].lineno) if code else None
    if raised is not None and hung:
        return Evidence(signs, raised, loop_lines(*raised, text_of(raised[0])))
    return Evidence(signs, raised)


def loop_lines(path: str, line: int, text: str | None) -> frozenset[tuple[str, int]]:
    """The condition of the innermost loop around line, and the lines of its body that assign
    a name the condition (a for loop: its iterable) reads."""
    try:
        tree = parse(text) if text is not None else None
    except (SyntaxError, ValueError):
        tree = None
    loops = [
        node
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, (ast.While, ast.For))
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    if not loops:
        return frozenset()
    loop = max(loops, key=lambda node: node.lineno)
    test = loop.test if isinstance(loop, ast.While) else loop.iter
    watched = {node.id for node in ast.walk(test) if isinstance(node, ast.Name)}
    found = {loop.lineno}
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            continue
        names = {
            name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)
        }
        if names & watched:
            found.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return frozenset((path, number) for number in found)


def _signs(case: Failure) -> list[str]:
    if case.exc_type in FAMILIES:
        return [case.exc_type]
    if case.timed_out:
        return ["timeout"]
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
