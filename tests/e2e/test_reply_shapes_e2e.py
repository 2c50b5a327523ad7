"""Reply shapes end to end (#34): chat replies shaped like real models' (written for this corpus),
sent as plain text through `pytest --heal` by the scripted server, both to the text prompt and as a
text answer to the tool prompt. A reply that holds a correct fix is HEALED whatever its shape; a
reply that does not fix never is, and says why.

Every project is a small program with a one-line bug; every reply is the same model answer a
careful developer would take the fix from: the fix, with usage examples and their output, a lone
changed line, a ``>>>`` session, restated classes, prose between the code, a helper class the
fix needs, an alternative under another name, examples moved into the docstring, fences inside
the docstring, a variant after the fix.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from textwrap import dedent
from typing import Any

import pytest
from helpers import CALC, TEST_CALC, TEXT_MODEL, TOOLS_MODEL, heal_args

from pytest_caretaker.testing import Scripted, ScriptedServer, text

MODELS = [pytest.param(TEXT_MODEL, id="text-prompt"), pytest.param(TOOLS_MODEL, id="tool-prompt")]
F = "```"  # a fence, to keep the replies below readable


@dataclass(frozen=True)
class Shape:
    files: dict[str, str]  # the project: file name (without .py) -> source
    reply: str
    healed: tuple[str, ...]  # the tests the reply's fix heals


SUMMING = dedent(
    """\
    def total(xs):
        result = 0
        for x in xs[1:]:
            result += x
        return result


    def mean(xs):
        return total(xs) / len(xs)
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
REVERSE = dedent(
    """\
    from node import Node


    def reverse_linked_list(node):
        prevnode = None
        while node:
            nextnode = node.successor
            node.successor = prevnode
            prevnode = node
            node = nextnode
        return node
    """
)
TEST_REVERSE = dedent(
    """\
    from node import Node
    from reverse_linked_list import reverse_linked_list


    def values(node):
        out = []
        while node:
            out.append(node.value)
            node = node.successor
        return out


    def test_reverse_three():
        assert values(reverse_linked_list(Node(1, Node(2, Node(3))))) == [3, 2, 1]


    def test_reverse_one():
        assert values(reverse_linked_list(Node(5))) == [5]


    def test_reverse_empty():
        assert reverse_linked_list(None) is None
    """
)
FIXED_REVERSE = dedent(
    """\
    def reverse_linked_list(node):
        prevnode = None
        while node:
            nextnode = node.successor
            node.successor = prevnode
            prevnode = node
            node = nextnode
        return prevnode
    """
)
COMPONENTS = dedent(
    '''\
    def count_components(n, edges):
        """The number of connected components of a graph of n nodes."""
        seen = set()
        count = 0
        for start in range(n):
            if start in seen:
                continue
            count += 1
            stack = [start]
            while stack:
                node = stack.pop()
                seen.add(node)
                for a, b in edges:
                    if a == node and b not in seen:
                        stack.append(b)
        return count
    '''
)
TEST_COMPONENTS = dedent(
    """\
    from components import count_components


    def test_an_edge_seen_from_its_far_end():
        assert count_components(3, [(1, 0)]) == 2


    def test_two_pairs():
        assert count_components(4, [(0, 1), (2, 3)]) == 2
    """
)
SIEVE = dedent(
    """\
    def sieve(limit):
        primes = []
        for n in range(2, limit + 1):
            if any(n % p > 0 for p in primes):
                primes.append(n)
        return primes
    """
)
TEST_SIEVE = (
    "from sieve import sieve\n\n\ndef test_primes():\n    assert sieve(10) == [2, 3, 5, 7]\n"
)
TO_BASE = dedent(
    '''\
    import string


    def to_base(num, b):
        """The digits of num in base b."""
        result = ""
        alphabet = string.digits + string.ascii_uppercase
        while num > 0:
            i = num % b
            num = num // b
            result = result + alphabet[i]
        return result


    """
    Examples:

    >>> to_base(31, 16)
    '1F'
    >>> to_base(5, 2)
    '101'
    """
    '''
)
TEST_TO_BASE = dedent(
    """\
    from to_base import to_base


    def test_hex():
        assert to_base(31, 16) == "1F"


    def test_binary():
        assert to_base(5, 2) == "101"
    """
)
SLUGIFY = dedent(
    '''\
    def slugify(title):
        """A URL slug of a title.

        ```python
        >>> slugify("Hello World")
        'hello-world'
        ```
        """
        return "-".join(title.split()).upper()
    '''
)
TEST_SLUGIFY = (
    'from slug import slugify\n\n\ndef test_slug():\n    assert slugify("Hello World") == '
    '"hello-world"\n'
)
FIXED_SLUGIFY = SLUGIFY.replace(".upper()", ".lower()")
REPORT = dedent(
    '''\
    class Report:
        def render(self, rows):
            try:
                body = """
    <table>
    %s
    </table>
    """ % "\\n".join("<tr>%s</tr>" % row for row in rows)
                return body.strip().upper()
            except Exception:
                return None
    '''
)
#: The fixed method as a model gives it alone: its def at the left margin, the string's lines too.
RENDER = dedent(
    '''\
    def render(self, rows):
        try:
            body = """
    <table>
    %s
    </table>
    """ % "\\n".join("<tr>%s</tr>" % row for row in rows)
            return body.strip()
        except Exception:
            return None
    '''
)
TEST_REPORT = (
    "from report import Report\n\n\ndef test_render():\n"
    '    assert Report().render(["a"]) == "<table>\\n<tr>a</tr>\\n</table>"\n'
)
FIXED_MEAN = "def mean(xs):\n    return total(xs) / len(xs)\n"
TEST_HALF = "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2]) == 1.5\n"

CALC_FILES = {"calc": CALC, "test_calc": TEST_CALC}
REVERSE_FILES = {"node": NODE, "reverse_linked_list": REVERSE, "test_reverse": TEST_REVERSE}
REVERSED = ("test_reverse.py::test_reverse_one", "test_reverse.py::test_reverse_three")
MEAN_HEALED = ("test_calc.py::test_mean",)

SHAPES = {
    "fix-then-example-and-output": Shape(
        CALC_FILES,
        "The bug is in `mean`: it divides by `len(xs) + 1` instead of the number of values.\n\n"
        f"### Corrected code\n\n{F}python\n{FIXED_MEAN}{F}\n\n"
        f"### Example usage\n\n{F}python\nprint(mean([1, 2, 3]))\n{F}\n\n"
        f"Output:\n\n{F}\n2.0\n{F}\n",
        MEAN_HEALED,
    ),
    "lone-changed-line": Shape(
        {"calc": SUMMING, "test_calc": TEST_CALC},
        "The loop in `total` skips the first element because it iterates over `xs[1:]`. "
        f"Change\n\n{F}python\nfor x in xs[1:]:\n{F}\n\nto\n\n{F}python\nfor x in xs:\n{F}\n\n"
        "Here is the full corrected function:\n\n"
        f"{F}python\n{SUMMING.split(chr(10) * 3)[0].replace('xs[1:]', 'xs')}\n{F}\n",
        ("test_calc.py::test_mean", "test_calc.py::test_total"),
    ),
    "session": Shape(
        CALC_FILES,
        f"`mean` adds one to the count. The fix:\n\n{F}python\n{FIXED_MEAN}{F}\n\n"
        f"Check:\n\n{F}python\n>>> mean([1, 2, 3])\n2.0\n>>> mean([4])\n4.0\n{F}\n",
        MEAN_HEALED,
    ),
    "untagged-output": Shape(
        CALC_FILES,
        f"Divide by the count, not the count plus one:\n\n{F}python\n{FIXED_MEAN}{F}\n\n"
        f"Running the tests now gives:\n\n{F}\ntest_calc.py::test_total PASSED\n"
        f"test_calc.py::test_mean PASSED\n{F}\n",
        MEAN_HEALED,
    ),
    "unfenced-code-between-prose": Shape(
        CALC_FILES,
        "The mean divides by one too many. Here is the corrected function:\n\n"
        f"{FIXED_MEAN}\nWith this change, mean([1, 2, 3]) returns 2.0 as the test expects. "
        "The total function is correct and needs no change.\n",
        MEAN_HEALED,
    ),
    "restated-class-with-repr": Shape(
        REVERSE_FILES,
        "The function returns `node`, which is always `None` once the loop ends; it should "
        "return `prevnode`, the new head.\n\n"
        f"{F}python\n{NODE}\n    def __repr__(self):\n        return f'Node({{self.value}})'\n"
        f"\n\n{FIXED_REVERSE}{F}\n",
        REVERSED,
    ),
    "restated-class-under-another-name": Shape(
        REVERSE_FILES,
        f"Assuming a node class like this:\n\n{F}python\n{NODE.replace('Node', 'ListNode')}{F}\n\n"
        f"the corrected function is:\n\n{F}python\n{FIXED_REVERSE}{F}\n",
        REVERSED,
    ),
    "restated-class-that-differs": Shape(
        REVERSE_FILES,
        "Return the new head, `prevnode`:\n\n"
        f"{F}python\nclass Node:\n    def __init__(self, value):\n        self.value = value\n"
        f"        self.successor = None\n\n\n{FIXED_REVERSE}{F}\n",
        REVERSED,
    ),
    "helper-class-the-fix-needs": Shape(
        {"components": COMPONENTS, "test_components": TEST_COMPONENTS},
        "`count_components` follows each edge in one direction only, so a node reached only "
        "through the second end of an edge starts a component of its own. A union-find "
        f"structure treats edges as undirected:\n\n{F}python\n"
        + dedent(
            '''\
            class UnionFind:
                def __init__(self, n):
                    self.parent = list(range(n))

                def find(self, x):
                    while self.parent[x] != x:
                        self.parent[x] = self.parent[self.parent[x]]
                        x = self.parent[x]
                    return x

                def union(self, a, b):
                    ra, rb = self.find(a), self.find(b)
                    if ra == rb:
                        return False
                    self.parent[ra] = rb
                    return True


            def count_components(n, edges):
                """The number of connected components of a graph of n nodes."""
                uf = UnionFind(n)
                count = n
                for a, b in edges:
                    if uf.union(a, b):
                        count -= 1
                return count
            '''
        )
        + f"{F}\n",
        ("test_components.py::test_an_edge_seen_from_its_far_end",),
    ),
    "alternative-under-another-name": Shape(
        {"sieve": SIEVE, "test_sieve": TEST_SIEVE},
        "`any` should be `all`: a number is prime when no smaller prime divides it.\n\n"
        f"{F}python\n{SIEVE.replace('any(', 'all(')}{F}\n\n"
        "If you need speed for large limits, the classic sieve of Eratosthenes is an "
        f"alternative:\n\n{F}python\n"
        + dedent(
            """\
            def sieve_of_eratosthenes(limit):
                is_prime = [True] * (limit + 1)
                is_prime[0:2] = [False, False]
                for i in range(2, int(limit ** 0.5) + 1):
                    if is_prime[i]:
                        for j in range(i * i, limit + 1, i):
                            is_prime[j] = False
                return [i for i, prime in enumerate(is_prime) if prime]
            """
        )
        + f"{F}\n",
        ("test_sieve.py::test_primes",),
    ),
    "examples-moved-into-the-docstring": Shape(
        {"to_base": TO_BASE, "test_to_base": TEST_TO_BASE},
        "The digits come out reversed: each new digit must go in front. I also moved the "
        f"examples into the docstring, where doctest finds them:\n\n{F}python\n"
        + dedent(
            '''\
            def to_base(num, b):
                """The digits of num in base b.

                >>> to_base(31, 16)
                '1F'
                >>> to_base(5, 2)
                '101'
                """
                result = ""
                alphabet = string.digits + string.ascii_uppercase
                while num > 0:
                    i = num % b
                    num = num // b
                    result = alphabet[i] + result
                return result
            '''
        )
        + f"{F}\n",
        ("test_to_base.py::test_hex",),
    ),
    "fences-inside-the-docstring": Shape(
        {"slug": SLUGIFY, "test_slug": TEST_SLUGIFY},
        f"`slugify` upper-cases the slug; it should lower-case it.\n\n{F}python\n"
        f"{FIXED_SLUGIFY}{F}\n",
        ("test_slug.py::test_slug",),
    ),
    "four-backtick-fence": Shape(
        {"slug": SLUGIFY, "test_slug": TEST_SLUGIFY},
        f"Lower-case it:\n\n````python\n{FIXED_SLUGIFY}````\n",
        ("test_slug.py::test_slug",),
    ),
    "tilde-fence": Shape(
        {"slug": SLUGIFY, "test_slug": TEST_SLUGIFY},
        f"Lower-case it:\n\n~~~python\n{FIXED_SLUGIFY}~~~\n",
        ("test_slug.py::test_slug",),
    ),
    "fix-then-a-variant": Shape(
        {"calc": CALC, "test_calc": TEST_HALF},
        f"Here is the corrected `mean`:\n\n{F}python\n{FIXED_MEAN}{F}\n\n"
        "If you want an integer mean, floor division works as well:\n\n"
        f"{F}python\ndef mean(xs):\n    return total(xs) // len(xs)\n{F}\n",
        MEAN_HEALED,
    ),
    "broad-except-kept-in-a-method-given-alone": Shape(
        {"report": REPORT, "test_render_report": TEST_REPORT},
        f"Only `render` changes; `.upper()` breaks the tags:\n\n{F}python\n{RENDER}{F}\n",
        ("test_render_report.py::test_render",),
    ),
    "broad-except-kept-as-it-was": Shape(
        {"report": REPORT, "test_render_report": TEST_REPORT},
        "`render` upper-cases the table, so the tags no longer match. Drop the `.upper()`:\n\n"
        f"{F}python\n{REPORT.replace('.upper()', '')}{F}\n",
        ("test_render_report.py::test_render",),
    ),
}


# -- one heal run for every case of a prompt style --------------------------------------------
#
# Each case used to be a `pytest --heal` of its own: ~2.5 s of CPU apiece (the run, its warm
# verification server, and the plain run that judges its patch), nearly all of it the same for
# every case. Now one run per prompt style holds every case's project at once, each under module
# names of its own (`calc` becomes `calc_3`, and so the test ids), and the scripted server answers
# each request with the reply of the case whose test it names. Each case keeps its own test id
# and is asserted on its own lines and requests; the run's patch is judged as every pytester
# run's is (tests/e2e/conftest.py), for all the cases together.


@dataclass(frozen=True)
class Case:
    """A problem of the shared run: its project's files and the replies to its requests, in
    order (the last one again for every later request)."""

    files: dict[str, str]
    replies: tuple[str, ...]


def cases() -> dict[str, Case]:
    """Every case a shared run holds, by name; its position names its modules."""
    found = {name: Case(shape.files, (shape.reply,)) for name, shape in SHAPES.items()}
    found |= {name: Case(files, (reply,)) for name, (files, reply, _) in NOT_FIXES.items()}
    found["second-round"] = Case(CALC_FILES, (WRONG, SECOND_ROUND))
    return found


def suffix(case: str) -> str:
    return f"_{list(cases()).index(case)}"


def renamed(case: str, text: str) -> str:
    """text (a file of the case, or a line expected of it) with the case's module names."""
    for module in cases()[case].files:
        new = module + suffix(case)
        text = re.sub(rf"(?m)^(from|import) {module}\b", rf"\1 {new}", text)
        text = re.sub(rf"(?<!\w){module}\.py\b", f"{new}.py", text)
    return text


def of_case(case: str, nodeid: str) -> bool:
    """Whether a test id is one of the case's (its file is one of the case's test files)."""
    tests = [module + suffix(case) + ".py" for module in cases()[case].files]
    return nodeid.split("::")[0] in tests


@dataclass
class Shared:
    """What one heal run of every case printed and was asked."""

    lines: list[str]
    requests: list[dict[str, Any]]

    def healed(self, case: str) -> list[str]:
        return sorted(
            line
            for line in self.lines
            if line.startswith("HEALED ") and of_case(case, line.split()[1])
        )

    def asked(self, case: str) -> list[dict[str, Any]]:
        """The requests about the case's tests, in the order they came."""
        return [r for r in self.requests if of_case(case, named_test(r))]


def named_test(body: dict[str, Any]) -> str:
    found = re.match(r"The test `([^`]+)` fails", str(body["messages"][1]["content"]))
    assert found is not None, body["messages"][1]["content"]
    return found.group(1)


@pytest.fixture(scope="module")
def _shared_runs() -> dict[str, Shared]:
    return {}


@pytest.fixture
def shared(
    pytester: pytest.Pytester,
    llm: ScriptedServer,
    model: str,
    _shared_runs: dict[str, Shared],
) -> Shared:
    """The shared run of the model's prompt style: made by the first test of the module that
    needs it (in its pytester, so its patch is judged at that test's end; under xdist, by the
    first of each worker's), then read by all."""
    if model in _shared_runs:
        return _shared_runs[model]
    every = cases()
    for case, spec in every.items():
        pytester.makepyfile(
            **{
                module + suffix(case): renamed(case, source)
                for module, source in spec.files.items()
            }
        )
    queues = {case: [text(reply) for reply in spec.replies] for case, spec in every.items()}
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Scripted:
        test = named_test(body)
        (case,) = [case for case in every if of_case(case, test)]
        with lock:
            queue = queues[case]
            return queue.pop(0) if len(queue) > 1 else queue[0]

    llm.responder = respond
    result = pytester.runpytest(*heal_args(llm, model))
    _shared_runs[model] = Shared(result.stdout.lines, list(llm.requests))
    return _shared_runs[model]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_a_reply_that_holds_a_fix_heals_whatever_its_shape(shared: Shared, shape: str) -> None:
    expected = [f"HEALED {renamed(shape, nodeid)}" for nodeid in SHAPES[shape].healed]
    assert shared.healed(shape) == expected, "\n".join(shared.lines)
    # The first reply was read right: one request a problem (the tests may be more than one).
    assert len(shared.asked(shape)) <= len(SHAPES[shape].healed)


SECOND_ROUND = (
    "You're right, my previous answer still divided by the wrong count. The failing line "
    f"was:\n\n{F}python\nreturn total(xs) / (len(xs) + 2)\n{F}\n\n"
    f"The corrected version:\n\n{F}python\n{FIXED_MEAN}{F}\n\n"
    f"Now:\n\n{F}\n>>> mean([1, 2, 3])\n2.0\n{F}\n\nwhich is what the test expects."
)


@pytest.mark.parametrize("model", MODELS)
def test_a_second_round_reply_to_the_failing_test_report_heals(shared: Shared) -> None:
    # Replies to a rejection quote the failing line and show the session that now works.
    assert shared.healed("second-round") == [f"HEALED {renamed('second-round', MEAN_HEALED[0])}"]
    asked = shared.asked("second-round")
    assert len(asked) == 2
    assert "still fails" in str(asked[1]["messages"][-1]["content"])


@pytest.mark.parametrize("model", MODELS[:1])  # the text prompt
def test_the_prompt_fences_code_in_a_fence_its_docstring_cannot_close(shared: Shared) -> None:
    # The text prompt of the case whose reply is fenced `python` code holding SLUGIFY's fix.
    prompt = str(shared.asked("fences-inside-the-docstring")[0]["messages"][1]["content"])
    assert f"````python\n{SLUGIFY}````" in prompt


# -- replies that do not fix -----------------------------------------------------------------

VERSION = dedent(
    """\
    def parse_version(text):
        parts = text.split(".")
        return tuple(int(p) for p in parts[1:])
    """
)
TEST_VERSION = dedent(
    """\
    import pytest
    from version import parse_version


    def test_parse():
        found = parse_version("1.2.3")
        if found is None:
            pytest.skip("not a version")
        assert found == (1, 2, 3)
    """
)

NOT_FIXES = {
    "example-and-output-only": (
        CALC_FILES,
        "`mean` looks right to me. Here is how to call it:\n\n"
        f"{F}python\nresult = mean([1, 2, 3])\nprint(result)\n{F}\n\nOutput:\n\n{F}\n1.5\n{F}\n",
        "NOT HEALED test_calc.py::test_mean: model output did not parse: The reply's code only "
        "uses the functions (examples, calls or output); *",
    ),
    "the-function-restated-unchanged": (
        CALC_FILES,
        "I could not find a problem in `mean`:\n\n"
        f"{F}python\ndef mean(xs):\n    return total(xs) / (len(xs) + 1)\n{F}\n",
        "NOT HEALED test_calc.py::test_mean: model output did not parse: The reply proposes "
        "no change: calc.py::mean is left out: the reply restates it unchanged. *",
    ),
    "a-fix-under-which-the-test-skips": (
        {"version": VERSION, "test_version": TEST_VERSION},
        "A version has at most two dots after the major number; anything else is not a "
        f"version:\n\n{F}python\ndef parse_version(text):\n    parts = text.split('.')\n"
        f"    if len(parts) > 2:\n        return None\n"
        f"    return tuple(int(p) for p in parts)\n{F}\n",
        "NOT HEALED test_version.py::test_parse: test_version.py::test_parse is skipped under "
        "the fix, and a skip is no pass",
    ),
}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("case", list(NOT_FIXES), ids=list(NOT_FIXES))
def test_a_reply_that_does_not_fix_is_never_healed_and_says_why(shared: Shared, case: str) -> None:
    assert shared.healed(case) == []
    _, _, line = NOT_FIXES[case]
    pytest.LineMatcher(shared.lines).fnmatch_lines([renamed(case, line)])


# -- one conversation per problem, and the caps ----------------------------------------------

FIVE = "from calc import mean\n" + "".join(
    f"\n\ndef test_mean_{n}():\n    assert mean([{n}, {n}]) == {n}\n" for n in range(1, 6)
)
WRONG = (
    f"Divide by two less:\n\n{F}python\ndef mean(xs):\n    return total(xs) / (len(xs) + 2)\n{F}\n"
)


def test_a_bug_failing_five_tests_costs_the_requests_of_one(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(calc=CALC, test_calc=FIVE)
    wrong = text(WRONG)
    llm.responder = lambda body: wrong

    result = pytester.runpytest(*heal_args(llm, TEXT_MODEL))

    assert len(llm.requests) == 3  # --heal-attempts, for the problem: not 3 for each test
    result.stdout.fnmatch_lines(
        [
            "caretaker: caps: 3 requests and 200,000 tokens a problem, 1,000,000 tokens a session",
            "NOT HEALED test_calc.py::test_mean_1: test_calc.py::test_mean_1 still fails",
            f"  3 attempts · 450 tokens · $0.0000 · * s · {TEXT_MODEL}",
            "NOT HEALED test_calc.py::test_mean_2: test_calc.py::test_mean_1 still fails (one "
            "root cause with test_calc.py::test_mean_1, repaired once for all)",
            "caretaker: 0 healed, 5 not healed · 450 tokens · *",
        ]
    )


def test_the_session_stops_asking_at_its_token_cap(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC)
    wrong = text(WRONG, prompt_tokens=900)
    llm.responder = lambda body: wrong

    result = pytester.runpytest(*heal_args(llm, TEXT_MODEL, "--heal-session-tokens", "1000"))

    assert len(llm.requests) == 2
    result.stdout.fnmatch_lines(
        [
            "caretaker: caps: 3 requests and 200,000 tokens a problem, 1,000 tokens a session",
            "NOT HEALED test_calc.py::test_mean: stopped after 2 attempts: the session used "
            "1,900 tokens, the cap is 1,000 (raise it with --heal-session-tokens)",
        ]
    )
