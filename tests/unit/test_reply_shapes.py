"""Reply shapes (#34): what real models write around a fix, read into the edits a careful developer
would take. Each case is a reply (before) and the edits of its best reading (after)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from textwrap import dedent

import pytest

from pytest_caretaker.llm import parse as parsing
from pytest_caretaker.project.files import SourceFile
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Proposal, Unparsed

CALC = dedent(
    """\
    def total(xs):
        return sum(xs)


    def mean(xs):
        return total(xs) / (len(xs) + 1)
    """
)
NODE = dedent(
    """\
    class Node:
        def __init__(self, value, successor=None):
            self.value = value
            self.successor = successor
    """
)
LINKED = dedent(
    """\
    from node import Node


    def reverse(head):
        prev, node = None, head
        while node:
            nxt = node.successor
            node.successor = prev
            prev = node
            node = nxt
        return node
    """
)
SOURCES = {
    "calc.py": CALC,
    "node.py": NODE,
    "linked.py": LINKED,
    "test_linked.py": "def test_reverse():\n    pass\n",
}
SUSPECTS = (
    Suspect("test_linked.py", "test_reverse", True, 1.0),
    Suspect("linked.py", "reverse", False, 1.0),
    Suspect("node.py", "Node.__init__", False, 0.6),
    Suspect("calc.py", "mean", False, 0.5),
)

MEAN = "def mean(xs):\n    return total(xs) / len(xs)\n"
REVERSE = LINKED.split("\n\n\n")[1].replace("return node\n", "return prev\n")
UNION_FIND = dedent(
    """\
    class UnionFind:
        def __init__(self, n):
            self.parent = list(range(n))

        def find(self, x):
            while self.parent[x] != x:
                x = self.parent[x]
            return x
    """
)
MEAN_WITH_HELPER = (
    "def mean(xs):\n    groups = UnionFind(len(xs))\n    return total(xs) / len(xs)\n"
)
DOCUMENTED = (
    'def mean(xs):\n    """The mean.\n\n    ```python\n    >>> mean([1, 2, 3])\n    2.0\n'
    '    ```\n    """\n    return total(xs) / len(xs)\n'
)

Expected = list[tuple[str, str, str]]  # (kind, ref, source) of the best reading's edits


def files(path: str) -> SourceFile | None:
    text = SOURCES.get(path)
    return SourceFile(path, text.encode()) if text is not None else None


def readings(text: str, tools: tuple[str, ...] = ()) -> tuple[Proposal, ...] | Unparsed:
    return parsing.read_reply(text, tools, SUSPECTS, lambda s: not s.is_test, files)


def best(text: str, tools: tuple[str, ...] = ()) -> Proposal | Unparsed:
    """The best reading, as parse_reply has always given it (so that a case runs before #34)."""
    return parsing.parse_reply(text, tools, SUSPECTS, lambda s: not s.is_test, files)


def edits(result: tuple[Proposal, ...] | Proposal | Unparsed, at: int = 0) -> Expected:
    assert not isinstance(result, Unparsed), result
    chosen = result if isinstance(result, Proposal) else result[at]
    return [(e.kind, e.ref, e.source) for e in chosen.edits]


def fenced(code: str, tag: str = "python", fence: str = "```") -> str:
    return f"{fence}{tag}\n{code}{fence}\n"


CASES: Mapping[str, tuple[str, Expected]] = {
    "fix-then-example-and-output": (
        "`mean` divides by one more than the count.\n\n"
        + fenced(MEAN)
        + "\nExample usage:\n\n"
        + fenced("print(mean([1, 2, 3]))  # 2.0\n")
        + "\nOutput:\n\n"
        + fenced("2.0\n", tag=""),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "lone-changed-line-then-fix": (
        "Change this line:\n\n"
        + fenced("for x in xs:\n")
        + "\nThe whole function:\n\n"
        + fenced(MEAN),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "session-then-fix": (
        fenced(MEAN) + "\nNow:\n\n" + fenced(">>> mean([1, 2, 3])\n2.0\n"),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "untagged-output-that-is-not-python": (
        fenced(MEAN) + "\nRunning the tests prints:\n\n" + fenced("3 passed in 0.01s\n", tag=""),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "fix-with-output-in-one-block": (
        fenced(MEAN + "\nprint(mean([1, 2, 3]))\nOutput: 2.0 (was 1.5)\n"),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "unfenced-code-between-prose": (
        "The divisor is off by one. Here is the corrected function:\n\n"
        + MEAN
        + "\nWith this change mean([1, 2, 3]) returns 2.0, as the test expects.\n",
        [("replace", "calc.py::mean", MEAN)],
    ),
    "restated-class-unchanged": (
        "For reference, the node class:\n\n" + fenced(NODE) + "\nThe fix:\n\n" + fenced(REVERSE),
        [("replace", "linked.py::reverse", REVERSE)],
    ),
    "restated-class-with-repr": (
        fenced(
            NODE + "\n    def __repr__(self):\n        return f'Node({self.value})'\n\n\n" + REVERSE
        ),
        [("replace", "linked.py::reverse", REVERSE)],
    ),
    "restated-class-under-another-name": (
        fenced("class ListNode:\n    def __init__(self, val=0):\n        self.val = val\n")
        + fenced(REVERSE),
        [("replace", "linked.py::reverse", REVERSE)],
    ),
    "helper-class-the-fix-needs": (
        fenced(UNION_FIND + "\n\n" + MEAN_WITH_HELPER),
        [
            ("replace", "calc.py::mean", MEAN_WITH_HELPER),
            ("helper", "calc.py::UnionFind", UNION_FIND),
        ],
    ),
    "alternative-under-another-name": (
        fenced(MEAN)
        + "\nAlternatively, with the statistics module:\n\n"
        + fenced("import statistics\n\n\ndef mean_alt(xs):\n    return statistics.fmean(xs)\n"),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "original-first-fixed-last": (
        "The original code:\n\n"
        + fenced("def mean(xs):\n    return total(xs) / (len(xs) + 1)  # bug\n")
        + "\nThe corrected code:\n\n"
        + fenced(MEAN),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "fixed-marked-then-a-variant": (
        "Here is the fixed version:\n\n"
        + fenced(MEAN)
        + "\nA shorter variant:\n\n"
        + fenced("def mean(xs):\n    return sum(xs) / len(xs)\n"),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "fences-inside-the-docstring": (
        fenced(DOCUMENTED),
        [("replace", "calc.py::mean", DOCUMENTED)],
    ),
    "four-backtick-fence": (
        fenced(DOCUMENTED, fence="````"),
        [("replace", "calc.py::mean", DOCUMENTED)],
    ),
    "tilde-fence": (fenced(MEAN, fence="~~~"), [("replace", "calc.py::mean", MEAN)]),
    "diff-block": (
        fenced(
            " def mean(xs):\n"
            "-    return total(xs) / (len(xs) + 1)\n"
            "+    return total(xs) / len(xs)\n",
            tag="diff",
        ),
        [("replace", "calc.py::mean", MEAN)],
    ),
    "fence-in-a-list-item-with-output": (
        "1. Divide by the count:\n\n   ```python\n"
        + "".join(f"   {line}\n" for line in MEAN.splitlines())
        + "\n   print(mean([1, 2, 3]))  # prints 2.0 now\n   2.0 (was 1.5)\n   ```\n",
        [("replace", "calc.py::mean", MEAN)],
    ),
    "body-line-then-example": (
        "Only the return changes:\n\n"
        + fenced("return total(xs) / len(xs)\n")
        + "\nCheck it:\n\n"
        + fenced("print(mean([1, 2, 3]))\n"),
        [("replace", "calc.py::mean", MEAN)],
    ),
}


@pytest.mark.parametrize(("text", "expected"), list(CASES.values()), ids=list(CASES))
def test_a_reply_shape_reads_into_the_fix(text: str, expected: Expected) -> None:
    assert edits(best(text)) == expected


NOT_A_FIX = {
    "example-only": (
        fenced("result = mean([1, 2, 3])\nprint(result)\n"),
        "only uses the functions",
    ),
    "output-only": (fenced("2.0\n", tag=""), "only uses the functions"),
    "restated-unchanged-only": (
        "The function looks right to me:\n\n" + fenced(CALC.split("\n\n\n")[1]),
        "calc.py::mean is left out: the reply restates it unchanged",
    ),
    "alternative-alone": (
        fenced("def mean_alt(xs):\n    return sum(xs) / len(xs)\n"),
        "The reply defines mean_alt, which matches no function",
    ),
    "nothing-parses": (
        fenced("def mean(xs)\n    return total(xs) / len(xs)\n"),
        "The code does not parse: expected ':'",
    ),
}


@pytest.mark.parametrize(("text", "reason"), list(NOT_A_FIX.values()), ids=list(NOT_A_FIX))
def test_a_reply_without_a_fix_says_why(text: str, reason: str) -> None:
    result = best(text)

    assert isinstance(result, Unparsed), result
    assert reason in result.reason


def test_a_restated_class_that_differs_is_a_reading_and_the_fix_alone_the_next() -> None:
    restated = NODE.replace("successor", "next")

    result = readings(fenced(restated + "\n\n" + REVERSE))

    assert sorted((kind, ref) for kind, ref, _ in edits(result)) == [
        ("replace", "linked.py::reverse"),
        ("replace", "node.py::Node.__init__"),
    ]
    assert edits(result, 1) == [("replace", "linked.py::reverse", REVERSE)]


def test_competing_definitions_are_readings_in_order_of_emphasis_and_say_which() -> None:
    variant = "def mean(xs):\n    return sum(xs) / len(xs)\n"
    text = "One way:\n\n" + fenced(variant) + "\nThe corrected function:\n\n" + fenced(MEAN)

    result = readings(text)

    assert [edits(result, k)[0][2] for k in range(2)] == [MEAN, variant]
    assert not isinstance(result, Unparsed)
    assert result[0].note == (
        "the reply defines calc.py::mean 2 times; this reading takes the one in code block 2 "
        "(marked as the fix)"
    )


def test_a_helper_class_comes_with_a_tool_call_too() -> None:
    code = UNION_FIND + "\n\n" + MEAN_WITH_HELPER
    call = json.dumps({"edits": [{"path": "calc.py", "function": "mean", "code": code}]})

    assert edits(best("", (call,))) == [
        ("replace", "calc.py::mean", MEAN_WITH_HELPER),
        ("helper", "calc.py::UnionFind", UNION_FIND),
    ]


def test_a_tool_calls_code_in_a_fence_is_taken_out_of_it() -> None:
    call = json.dumps({"edits": [{"path": "calc.py", "function": "mean", "code": fenced(MEAN)}]})

    assert edits(best("", (call,))) == [("replace", "calc.py::mean", MEAN)]


def test_the_prose_is_the_explanation_and_code_is_not() -> None:
    text = "The divisor is off by one.\n\n" + MEAN + "\nNow it divides by the count.\n"

    result = best(text)

    assert isinstance(result, Proposal), result
    assert result.explanation == "The divisor is off by one. Now it divides by the count."


def test_a_restatement_differs_when_its_doctest_expects_something_else() -> None:
    from pytest_caretaker.llm.restated import same

    halve = 'def halve(n):\n    """Half of n.\n\n    >>> halve(10)\n    5\n    """\n'
    halve += "    return n // 3\n"
    reworded = halve.replace("Half of n.", "The half of n, rounded down.")
    expects_three = halve.replace("    5\n", "    3\n")

    assert same(reworded, halve)  # prose is not a change
    assert not same(expects_three, halve)  # a doctest is a test: changing it is a change
