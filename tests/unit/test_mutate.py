"""Mutate: every operator family before/after, byte preservation, lines, whole-function sources."""

from __future__ import annotations

import ast
import re
import textwrap
from collections import Counter
from collections.abc import Iterator

import libcst as cst
import pytest

from pytest_caretaker.builtin import mutate
from pytest_caretaker.builtin.mutate import Mutant
from pytest_caretaker.builtin.operators import OPERATORS
from pytest_caretaker.project.files import Definition, SourceFile


def source_file(text: str, path: str = "mod.py") -> SourceFile:
    return SourceFile(path, textwrap.dedent(text).encode())


def definition_of(source: SourceFile, qualname: str | None = None) -> Definition:
    if qualname is None:
        (definition,) = mutate.outermost(source)
        return definition
    found = source.find(qualname)
    assert found is not None
    return found


def mutants_of(text: str, qualname: str | None = None) -> tuple[SourceFile, list[Mutant]]:
    source = source_file(text)
    return source, mutate.mutants(source, definition_of(source, qualname))


def compiles(text: str) -> bool:
    try:
        compile(text, "mod.py", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


#: One-line bodies are put in this function; its names: a, b, xs (parameters), f (itself).
BODY = "def f(a, b, xs):\n    {}\n"


def new_lines(line: str, operator: str) -> set[str]:
    """The body line after each mutant of one operator family, of ``BODY`` with that line."""
    source = source_file(BODY.format(line))
    found: set[str] = set()
    for m in mutate.mutants(source, definition_of(source)):
        if m.operator != operator:
            continue
        after = m.apply(source.text)
        assert compiles(after)
        head, new, tail = after.split("\n", 2)
        assert (head, tail) == ("def f(a, b, xs):", "")
        assert new.startswith("    ")
        found.add(new[4:])
    return found


def new_functions(text: str, operator: str) -> set[str]:
    """The whole new text of the file after each mutant of one operator family."""
    source, found = mutants_of(text)
    return {m.apply(source.text) for m in found if m.operator == operator}


# -- every operator family: expected edits, and edits it must not make ---------------------------


@pytest.mark.parametrize(
    ("line", "operator", "expected", "unexpected"),
    [
        # comparison
        pytest.param(
            "return a < b",
            "comparison",
            {"return a <= b", "return a >= b", "return a > b"},
            {"return a < b"},
            id="comparison-boundary-and-negation",
        ),
        pytest.param(
            "return a == b", "comparison", {"return a != b"}, {"return a is b"}, id="comparison-eq"
        ),
        pytest.param(
            "return a is None",
            "comparison",
            {"return a is not None"},
            {"return a == None", "return a is None"},
            id="comparison-is",
        ),
        pytest.param(
            "return a is not None",
            "comparison",
            {"return a is None"},
            set(),
            id="comparison-is-not",
        ),
        pytest.param(
            "return a in xs", "comparison", {"return a not in xs"}, set(), id="comparison-in"
        ),
        pytest.param(
            "return a not in xs", "comparison", {"return a in xs"}, set(), id="comparison-not-in"
        ),
        pytest.param(
            "return a<b",
            "comparison",
            {"return a<=b", "return a>=b"},
            {"return a <= b", "return a<= b"},
            id="comparison-keeps-no-spacing",
        ),
        pytest.param(
            "return a  ==  b",
            "comparison",
            {"return a  !=  b"},
            {"return a != b"},
            id="comparison-keeps-wide-spacing",
        ),
        pytest.param(
            "return a < b < xs",
            "comparison",
            {"return a <= b < xs", "return a < b <= xs"},
            {"return a <= b <= xs"},
            id="comparison-chained-one-at-a-time",
        ),
        # arithmetic
        pytest.param(
            "return a + b",
            "arithmetic",
            {"return a - b", "return a * b"},
            {"return (a * b)", "return (a - b)"},  # a returned value needs no parentheses
            id="arithmetic-add",
        ),
        pytest.param(
            "return a * b",
            "arithmetic",
            {"return a / b", "return a // b", "return a + b"},
            {"return (a + b)", "return (a / b)"},
            id="arithmetic-multiply",
        ),
        pytest.param(
            "a += b", "arithmetic", {"a -= b", "a *= b"}, {"a = a - b"}, id="arithmetic-augmented"
        ),
        pytest.param(
            "a *= 2", "arithmetic", {"a /= 2", "a //= 2", "a += 2"}, set(), id="arithmetic-aug-mul"
        ),
        pytest.param(
            "return a | b",
            "arithmetic",
            {"return a & b", "return a ^ b"},
            {"return (a & b)", "return (a ^ b)"},
            id="arithmetic-bitwise-no-redundant-parentheses",
        ),
        pytest.param(
            "return a - b * c",
            "arithmetic",
            {"return a - (b + c)", "return a - b / c"},
            {"return a - b + c", "return (a - (b + c))"},
            id="arithmetic-operand-gets-parentheses",
        ),
        pytest.param(
            "return a + b * c",
            "arithmetic",
            {"return a - b * c", "return a + (b + c)"},
            {"return (a - b * c)"},
            id="arithmetic-parentheses-only-where-needed",
        ),
        pytest.param(
            "return a << b",
            "arithmetic",
            {"return a >> b"},
            {"return (a >> b)"},
            id="arithmetic-same-precedence-no-parentheses",
        ),
        pytest.param(
            "return a+b", "arithmetic", {"return a-b"}, {"return a - b"}, id="arithmetic-spacing"
        ),
        pytest.param(
            "return (a + b) * 2",
            "arithmetic",
            {"return (a - b) * 2", "return (a + b) / 2"},
            {"return ((a - b)) * 2"},
            id="arithmetic-inside-parentheses",
        ),
        # boolean
        pytest.param("return a and b", "boolean", {"return a or b"}, set(), id="boolean-and"),
        pytest.param("return a or b", "boolean", {"return a and b"}, set(), id="boolean-or"),
        pytest.param("return not a", "boolean", {"return a"}, {"return not not a"}, id="not"),
        pytest.param(
            "return not a == b", "boolean", {"return (a == b)"}, set(), id="boolean-drop-not-cmp"
        ),
        pytest.param("return -a", "boolean", set(), {"return a"}, id="boolean-not-minus"),
        # constant
        pytest.param(
            "return a + 2",
            "constant",
            {"return a + 3", "return a + 1"},
            {"return a + 2 + 1"},
            id="constant-plus-minus-one",
        ),
        pytest.param(
            "return xs[0]", "constant", {"return xs[1]"}, {"return xs[-1]"}, id="constant-zero"
        ),
        pytest.param("return 0x10", "constant", set(), {"return 0x11"}, id="constant-hex-left"),
        pytest.param("return 1.5", "constant", set(), {"return 2.5"}, id="constant-float-left"),
        # off_by_one
        pytest.param(
            "return xs[a]",
            "off_by_one",
            {"return xs[a + 1]", "return xs[a - 1]"},
            {"return xs[(a + 1)]"},
            id="off-by-one-index",
        ),
        pytest.param(
            "return xs[a:b]",
            "off_by_one",
            {"return xs[a:b + 1]", "return xs[a:b - 1]", "return xs[a + 1:b]"},
            set(),
            id="off-by-one-slice-bounds",
        ),
        pytest.param(
            "return range(a)",
            "off_by_one",
            {"return range(a + 1)", "return range(a - 1)"},
            set(),
            id="off-by-one-call-argument",
        ),
        pytest.param(
            "return g(key=a)",
            "off_by_one",
            {"return g(key=a + 1)"},
            {"return g(key + 1=a)"},
            id="off-by-one-keyword-argument-value",
        ),
        pytest.param(
            "return g(*xs)",
            "off_by_one",
            {"return g(*xs) + 1"},
            {"return g(*xs + 1)", "return g(*(xs + 1))"},
            id="off-by-one-not-star-arguments",
        ),
        pytest.param(
            "return a < b",
            "off_by_one",
            {"return a < b + 1", "return a - 1 < b"},
            set(),
            id="off-by-one-comparison-operand",
        ),
        pytest.param(
            "return a - b",
            "off_by_one",
            {"return a - b + 1", "return a - b - 1"},
            {"return (a - b) + 1"},
            id="off-by-one-additive-without-parentheses",
        ),
        pytest.param(
            "return a | b",
            "off_by_one",
            # `a | b + 1` is produced too, rightly: it is ±1 on the operand b (+ binds tighter).
            {"return (a | b) + 1", "return (a | b) - 1", "return a | b + 1", "return a + 1 | b"},
            {"return a | (b + 1)"},
            id="off-by-one-bitwise-gets-parentheses",
        ),
        pytest.param(
            "return a if b else xs",
            "off_by_one",
            {"return (a if b else xs) + 1"},
            {"return a if b else xs + 1"},
            id="off-by-one-conditional-gets-parentheses",
        ),
        pytest.param(
            "return xs[(a)]",
            "off_by_one",
            {"return xs[(a + 1)]"},
            {"return xs[((a + 1))]", "return xs[(a) + 1]"},
            id="off-by-one-keeps-parentheses",
        ),
        pytest.param(
            "return xs[0]",
            "off_by_one",
            {"return xs[0] + 1"},
            {"return xs[0 + 1]", "return xs[0 - 1]"},
            id="off-by-one-leaves-integers-to-constant",
        ),
        # variable
        pytest.param(
            "return a + b",
            "variable",
            {"return b + b", "return xs + b", "return a + a", "return a + xs"},
            {"return f + b", "return a + f"},
            id="variable-parameters",
        ),
        pytest.param(
            "return g(a=b)",
            "variable",
            {"return g(a=a)", "return g(a=xs)"},
            {"return g(b=b)", "return g(xs=b)"},
            id="variable-not-keyword-names",
        ),
        pytest.param(
            "return a.b",
            "variable",
            {"return b.b", "return xs.b"},
            {"return a.a", "return a.xs"},
            id="variable-not-attribute-names",
        ),
        pytest.param(
            "return f(a)",
            "variable",
            {"return f(b)", "return f(xs)"},
            {"return a(a)", "return b(a)", "return xs(a)"},
            id="variable-not-the-function-itself",
        ),
        pytest.param(
            "a = b",
            "variable",
            {"a = xs"},
            {"b = b", "xs = b", "a = a"},  # a = a does nothing: no candidate
            id="variable-not-assignment-targets",
        ),
        pytest.param(
            "return len(b)",
            "variable",
            {"return len(a)"},
            {"return a(b)", "return b(b)"},
            id="variable-not-globals",
        ),
        # swap
        pytest.param(
            "return g(a, b, xs)",
            "swap",
            {"return g(b, a, xs)", "return g(xs, b, a)", "return g(a, xs, b)"},
            set(),
            id="swap-positional-arguments",
        ),
        pytest.param(
            "return g(a, key=b)",
            "swap",
            set(),
            {"return g(b, key=a)", "return g(key=b, a)"},
            id="swap-not-keyword-arguments",
        ),
        pytest.param(
            "return g(a, *xs)", "swap", set(), {"return g(*xs, a)"}, id="swap-not-star-arguments"
        ),
        pytest.param("return a - b", "swap", {"return b - a"}, set(), id="swap-subtract"),
        pytest.param(
            "return a - b - xs",
            "swap",
            {"return xs - (a - b)", "return b - a - xs"},
            {"return xs - a - b"},
            id="swap-parenthesizes-an-operand",
        ),
        pytest.param("return a + b", "swap", set(), {"return b + a"}, id="swap-not-add"),
        pytest.param("return a * b", "swap", set(), {"return b * a"}, id="swap-not-multiply"),
        # unwrap
        pytest.param("return abs(a)", "unwrap", {"return a"}, set(), id="unwrap"),
        pytest.param(
            "return abs(a - b) * 2",
            "unwrap",
            {"return (a - b) * 2"},
            {"return a - b * 2"},
            id="unwrap-parenthesizes",
        ),
        pytest.param(
            "return abs((a - b)) * 2",
            "unwrap",
            {"return (a - b) * 2"},
            {"return ((a - b)) * 2"},
            id="unwrap-keeps-parentheses",
        ),
        pytest.param(
            "return g(a, b)",
            "unwrap",
            set(),
            {"return a", "return b"},
            id="unwrap-not-two-arguments",
        ),
        pytest.param("return g(*xs)", "unwrap", set(), {"return xs"}, id="unwrap-not-star"),
        # a str() returned: unwrapped, the function returns what is not a str (or nothing new)
        pytest.param("return str(a)", "unwrap", set(), {"return a"}, id="unwrap-not-returned-str"),
        pytest.param("b = str(a)", "unwrap", {"b = a"}, set(), id="unwrap-str-elsewhere"),
        pytest.param(
            "return str(a) == b", "unwrap", {"return a == b"}, set(), id="unwrap-str-compared"
        ),
        pytest.param("return g(key=a)", "unwrap", set(), {"return a"}, id="unwrap-not-keyword"),
        # builtin_pair
        pytest.param(
            "return min(a, b)", "builtin_pair", {"return max(a, b)"}, set(), id="builtin-min"
        ),
        pytest.param(
            "return max(a, b)", "builtin_pair", {"return min(a, b)"}, set(), id="builtin-max"
        ),
        pytest.param("return any(xs)", "builtin_pair", {"return all(xs)"}, set(), id="any"),
        pytest.param("return all(xs)", "builtin_pair", {"return any(xs)"}, set(), id="all"),
        pytest.param("return True", "builtin_pair", {"return False"}, set(), id="true"),
        pytest.param("a = False", "builtin_pair", {"a = True"}, set(), id="false"),
        pytest.param(
            "return xs.min()", "builtin_pair", set(), {"return xs.max()"}, id="builtin-not-attr"
        ),
        pytest.param(
            "return g(min=a)", "builtin_pair", set(), {"return g(max=a)"}, id="builtin-not-keyword"
        ),
    ],
)
def test_operator(line: str, operator: str, expected: set[str], unexpected: set[str]) -> None:
    found = new_lines(line, operator)
    assert expected <= found
    assert not (unexpected & found)
    if not expected:
        assert found == set()


@pytest.mark.parametrize(
    ("line", "operator", "expected"),
    [
        pytest.param("return xs[0]", "constant", {"return xs[1]"}, id="constant-zero"),
        pytest.param("return a is None", "comparison", {"return a is not None"}, id="is"),
        pytest.param("return not a", "boolean", {"return a"}, id="not"),
        pytest.param("return a - b", "swap", {"return b - a"}, id="swap"),
        pytest.param("return abs(a)", "unwrap", {"return a"}, id="unwrap"),
        pytest.param("a += b", "arithmetic", {"a -= b", "a *= b"}, id="augmented"),
        pytest.param("a **= b", "arithmetic", {"a *= b"}, id="power-augmented"),
    ],
)
def test_operator_exactly(line: str, operator: str, expected: set[str]) -> None:
    assert new_lines(line, operator) == expected


@pytest.mark.parametrize(
    "line",
    ["return self.compare(other) == 0", "return a > b and b > c", "return not a", "return True"],
)
def test_a_truth_value_is_never_off_by_one(line: str) -> None:
    # `(a == b) + 1` is always true: it "healed" a real Version.__eq__ and broke 18 tests.
    expression = line.removeprefix("return ")
    wrapped = {f"return ({expression}) {sign} 1" for sign in "+-"}  # as the mutator writes it
    assert not wrapped & new_lines(line, "off_by_one")


def test_comparison_prefers_the_boundary() -> None:
    _, found = mutants_of(BODY.format("return a < b"))
    priors = {m.replacement: m.prior for m in found if m.operator == "comparison"}
    assert priors["a <= b"] == max(priors.values())
    assert priors["a <= b"] > priors["a >= b"] > priors["a == b"]


def test_every_operator_family_is_covered_and_known() -> None:
    text = """\
    def f(a, b, xs):
        if a < b and not xs:
            a += 1
        c = min(abs(a - b), 2) * g(a, b)
        d = g(a, xs) - b * c * 100
        return xs[c] + "!" + a.name + b.size + xs["k"] + xs.get("j")
    """
    _, found = mutants_of(text)
    assert {m.operator for m in found} == set(OPERATORS)


# -- delete and insert -----------------------------------------------------------------------------

DOCUMENTED = '''\
def f(a):
    """Doc."""
    a = a + 1
    if a:
        a = 2
    return a
'''


def test_delete_a_statement() -> None:
    found = new_functions(DOCUMENTED, "delete")
    assert 'def f(a):\n    """Doc."""\n    if a:\n        a = 2\n    return a\n' in found
    assert 'def f(a):\n    """Doc."""\n    a = a + 1\n    if a:\n        a = 2\n' in found


def test_delete_puts_pass_when_the_statement_is_alone_in_its_block() -> None:
    found = new_functions(DOCUMENTED, "delete")
    assert (
        'def f(a):\n    """Doc."""\n    a = a + 1\n    if a:\n        pass\n    return a\n' in found
    )
    assert not any("    if a:\n    return" in text for text in found)


def test_delete_never_a_docstring_nor_pass_nor_a_compound_statement() -> None:
    found = new_functions(DOCUMENTED, "delete")
    assert all('"""Doc."""' in text for text in found)
    assert all("if a:" in text for text in found)
    assert len(found) == 3
    _, in_g = mutants_of("def g():\n    pass\n")
    assert [m for m in in_g if m.operator == "delete"] == []


def test_delete_a_multi_line_statement_whole() -> None:
    text = "def f(a):\n    a = g(\n        a,\n    )\n    return a\n"
    assert "def f(a):\n    return a\n" in new_functions(text, "delete")


def test_insert_a_copy_of_another_one_line_statement() -> None:
    text = "def f(a):\n    b = a\n    if b:\n        a = 2\n    return b\n"
    found = new_functions(text, "insert")
    # before the first statement, into the nested block, after the last one
    assert "def f(a):\n    return b\n    b = a\n    if b:\n        a = 2\n    return b\n" in found
    assert "def f(a):\n    b = a\n    if b:\n        b = a\n        a = 2\n    return b\n" in found
    assert "def f(a):\n    b = a\n    if b:\n        a = 2\n    return b\n    a = 2\n" in found
    # compound statements are not copied
    assert all(new.count("if b:") == 1 for new in found)


def test_insert_copies_neither_multi_line_statements_nor_docstrings() -> None:
    text = 'def f(a):\n    """Doc."""\n    a = g(\n        a,\n    )\n    return a\n'
    found = new_functions(text, "insert")
    assert found
    assert all(new.count("a = g(") == 1 for new in found)
    assert all(new.count('"""Doc."""') == 1 for new in found)
    assert all(new.count("return a") == 2 for new in found)


# -- bugs: mutants that do not mean what they say, or do not compile ------------------------------


def test_unwrap_a_generator_argument() -> None:
    assert new_lines("return sum(x for x in xs)", "unwrap") == {"return (x for x in xs)"}


@pytest.mark.parametrize(
    ("line", "wrong"),
    [
        pytest.param("return sum(x for x in xs)", "return sum(x for x in xs + 1)", id="genexp"),
        pytest.param("return a, b", "return a, b + 1", id="tuple"),
    ],
)
def test_off_by_one_keeps_the_grouping(line: str, wrong: str) -> None:
    assert wrong not in new_lines(line, "off_by_one")


def test_arithmetic_keeps_the_grouping_of_operands() -> None:
    found = {ast.unparse(ast.parse(line)) for line in new_lines("return a | b ^ xs", "arithmetic")}
    assert "return a | b & xs" in found  # the inner operator replaced
    assert "return a & (b ^ xs)" in found  # the outer one


def test_a_multi_line_expression_keeps_its_layout() -> None:
    text = """\
    class A:
        def f(self, a):
            if a:
                return g(
                    a,  # first
                    a * 2,
                )
    """
    source, found = mutants_of(text, "A.f")
    call = "g(\n                a,  # first\n                a * 2,\n            )"
    off = [m for m in found if m.operator == "off_by_one" and source.text[m.start : m.end] == call]
    assert {m.replacement for m in off} == {call + " + 1", call + " - 1"}


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "def f(xs):\n    for x in xs:\n        break\n    return 1\n", id="break-outside-loop"
        ),
        pytest.param(
            "def f(xs):\n    for x in xs:\n        continue\n    return 1\n", id="continue"
        ),
        pytest.param(
            "def f():\n    n = 0\n    def g():\n        nonlocal n\n        n = 1\n    return g\n",
            id="nonlocal",
        ),
        pytest.param("def f():\n    global G\n    G = 1\n", id="global"),
        pytest.param(
            "async def f(x):\n    def g():\n        return 1\n    await x\n    return g\n",
            id="await",
        ),
        pytest.param(
            "def f(x):\n    class A:\n        y = 1\n    return A\n", id="return-in-class-body"
        ),
    ],
)
def test_every_mutant_compiles_whatever_the_statements(text: str) -> None:
    source, found = mutants_of(text)
    assert found
    assert [m.description for m in found if not compiles(m.apply(source.text))] == []


def test_insert_at_the_end_of_a_file_without_final_newline() -> None:
    source = SourceFile("mod.py", b"def f(x):\n    y = x\n    return y")
    found = mutate.mutants(source, definition_of(source))
    assert [m.description for m in found if not compiles(m.apply(source.text))] == []


def test_insert_before_a_decorated_nested_function() -> None:
    text = "def f(x):\n    @dec(1)\n    def g(a=2):\n        return a\n    return g\n"
    source, found = mutants_of(text)
    assert [m.description for m in found if not compiles(m.apply(source.text))] == []


@pytest.mark.parametrize("char", ["\x0c", "\u2028"])
def test_a_line_break_character_in_a_string_literal(char: str) -> None:
    text = f"def f(x):\n    s = 'a{char}b'\n    if x:\n        return s\n    return x\n"
    source, found = mutants_of(text)
    assert [m.description for m in found if not compiles(m.apply(source.text))] == []


def test_line_of_an_expression_in_a_match_subject() -> None:
    text = """\
    def f(x):
        if x:
            match x + 1:
                case 2:
                    return 1
    """
    _, found = mutants_of(text)
    arithmetic = [m for m in found if m.operator == "arithmetic"]
    assert arithmetic and {m.line for m in arithmetic} == {3}


def test_no_two_mutants_make_the_same_file() -> None:
    source, found = mutants_of("def f(a, b):\n    a = a + 1\n    return a - b\n")
    counts = Counter(m.apply(source.text) for m in found)
    assert [text for text, count in counts.items() if count > 1] == []


# -- byte preservation -----------------------------------------------------------------------------

METHOD = """\
import math


class Shape:
    sides = 4

    def area(self, width, height=2):
        '''Area.'''
        total = width * height
        if total > 10 and not self.flat:
            total -= 1
        return max(total, abs(width - height))

    def name(self):
        return "shape"
"""

CRLF = METHOD.replace("\n", "\r\n")

TABS = (
    "class Shape:\n"
    "\tdef area(self, width, height):\n"
    "\t\ttotal = width * height\n"
    "\t\tif total > 10:\n"
    "\t\t\ttotal -= 1\n"
    "\t\treturn min(total, width)\n"
)

ODD = """\
def area(width,height):   # a comment on the def
    # a comment before the body
    total=width*height    # trailing comment
    if total>10 :
        total  -=  1      # and another
    return   max( total , abs( width-height ) )
"""


@pytest.mark.parametrize(
    ("text", "qualname"),
    [
        pytest.param(METHOD, "Shape.area", id="method"),
        pytest.param(CRLF, "Shape.area", id="crlf"),
        pytest.param(TABS, "Shape.area", id="tabs"),
        pytest.param(ODD, "area", id="comments-and-odd-spacing"),
    ],
)
def test_mutants_change_only_their_own_span(text: str, qualname: str) -> None:
    source = SourceFile("mod.py", text.encode())
    assert source.text == text
    definition = definition_of(source, qualname)
    found = mutate.mutants(source, definition)
    assert {m.operator for m in found} >= {"comparison", "arithmetic", "delete", "insert"}
    line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\n", text)]
    body_from = line_starts[definition.body_start - 1]
    def_until = line_starts[definition.end]
    original = ast.dump(ast.parse(text))
    for m in found:
        assert (m.path, m.function) == ("mod.py", qualname)
        assert body_from <= m.start <= m.end <= def_until
        after = m.apply(text)
        assert after[: m.start] == text[: m.start]
        assert after[m.start + len(m.replacement) :] == text[m.end :]
        assert compiles(after), m.description
        assert ast.dump(ast.parse(after)) != original, m.description  # never a no-op
        if "\r\n" in text:
            assert "\n" not in after.replace("\r\n", "")
        if "\t" in text:
            assert not re.search(r"^\t* ", after, re.MULTILINE)  # no space-indented line


def test_comments_and_spacing_stay_as_they_were() -> None:
    source = SourceFile("mod.py", ODD.encode())
    found = mutate.mutants(source, definition_of(source))
    replacements = {(source.text[m.start : m.end], m.replacement) for m in found}
    assert ("width*height", "width/height") in replacements
    assert ("total>10", "total>=10") in replacements
    assert ("total  -=  1", "total  +=  1") in replacements
    assert ("width-height", "height-width") in replacements
    for m in found:
        after = m.apply(source.text)
        assert "# a comment on the def" in after
        assert "# a comment before the body" in after
        if m.operator != "delete":
            assert after.count("# trailing comment") >= 1


def test_mutants_in_a_crlf_file_insert_crlf_lines() -> None:
    source = SourceFile("mod.py", CRLF.encode())
    found = mutate.mutants(source, definition_of(source, "Shape.area"))
    inserted = [m.replacement for m in found if m.operator == "insert"]
    assert "            total = width * height\r\n" in inserted  # at the depth of its target
    assert all(r.endswith("\r\n") and r.count("\n") == 1 for r in inserted)


def test_a_file_with_a_bom() -> None:
    source = SourceFile("mod.py", b"\xef\xbb\xbfdef f(a):\n    return a < 1\n")
    found = mutate.mutants(source, definition_of(source))
    assert "def f(a):\n    return a <= 1\n" in {m.apply(source.text) for m in found}


# -- function_source ------------------------------------------------------------------------------


def dedented_definition(text: str, qualname: str) -> str:
    """The dedented source of qualname in text, found by the ast: an independent oracle."""
    definition = definition_of(SourceFile("mod.py", text.encode()), qualname)
    lines = text.splitlines(keepends=True)[definition.start - 1 : definition.end]
    return textwrap.dedent("".join(lines))


def test_function_source_of_every_mutant_of_a_method() -> None:
    source = SourceFile("mod.py", METHOD.encode())
    found = mutate.mutants(source, definition_of(source, "Shape.area"))
    assert {"delete", "insert"} <= {m.operator for m in found}
    for m in found:
        new = mutate.function_source(source, m)
        assert new.startswith("def area(self, width, height=2):\n")
        assert new == dedented_definition(m.apply(source.text), "Shape.area")
        assert "sides = 4" not in new
        assert "def name" not in new
        compile(new, "mod.py", "exec", dont_inherit=True)


@pytest.mark.parametrize(
    ("operator", "description", "expected"),
    [
        pytest.param(
            "delete",
            "delete `total = width * height`",
            "def area(self, width, height=2):\n"
            "    '''Area.'''\n"
            "    if total > 10 and not self.flat:\n"
            "        total -= 1\n"
            "    return max(total, abs(width - height))\n",
            id="delete",
        ),
        pytest.param(
            "insert",
            "insert `total -= 1`",
            "def area(self, width, height=2):\n"
            "    '''Area.'''\n"
            "    total = width * height\n"
            "    if total > 10 and not self.flat:\n"
            "        total -= 1\n"
            "    return max(total, abs(width - height))\n"
            "    total -= 1\n",
            id="insert-after-the-last-statement",
        ),
        pytest.param(
            "comparison",
            "`total > 10` → `total >= 10`",
            "def area(self, width, height=2):\n"
            "    '''Area.'''\n"
            "    total = width * height\n"
            "    if total >= 10 and not self.flat:\n"
            "        total -= 1\n"
            "    return max(total, abs(width - height))\n",
            id="comparison",
        ),
    ],
)
def test_function_source(operator: str, description: str, expected: str) -> None:
    source = SourceFile("mod.py", METHOD.encode())
    found = mutate.mutants(source, definition_of(source, "Shape.area"))
    chosen = [m for m in found if m.operator == operator and m.description == description]
    assert expected in {mutate.function_source(source, m) for m in chosen}


def test_function_source_keeps_crlf_and_decorators() -> None:
    text = "class A:\r\n    @staticmethod\r\n    def f(a):\r\n        return a + 1\r\n"
    source = SourceFile("mod.py", text.encode())
    found = mutate.mutants(source, definition_of(source, "A.f"))
    (m,) = [m for m in found if m.operator == "arithmetic" and "-" in m.replacement]
    assert mutate.function_source(source, m) == "@staticmethod\r\ndef f(a):\r\n    return a - 1\r\n"


def test_function_source_of_an_unknown_function() -> None:
    source = source_file("def f(a):\n    return a + 1\n")
    (m, *_) = mutate.mutants(source, definition_of(source))
    other = source_file("def g(a):\n    return a\n")
    with pytest.raises(ValueError, match="no function f"):
        mutate.function_source(other, m)


# -- which functions, which lines ------------------------------------------------------------------

NESTED = """\
def top(a):
    def inner(b):
        return b + 1
    return inner(a)


class Shape:
    def area(self):
        def helper():
            return 1
        return helper()

    class Inner:
        def deep(self):
            return 2


if True:
    def conditional():
        return 3


async def fetch():
    return 4
"""


def test_outermost_returns_top_level_functions_and_methods() -> None:
    source = source_file(NESTED)
    assert [d.qualname for d in mutate.outermost(source)] == [
        "top",
        "Shape.area",
        "Shape.Inner.deep",
        "conditional",
        "fetch",
    ]


def test_outermost_of_a_file_that_does_not_parse() -> None:
    assert mutate.outermost(source_file("def broken(:\n")) == ()


def test_a_nested_function_is_mutated_with_its_outer_function() -> None:
    source, found = mutants_of(NESTED, "top")
    assert any("        return b - 1\n" in m.apply(source.text) for m in found)
    assert {m.function for m in found} == {"top"}


def test_no_mutants_outside_the_body_but_the_decorators_arguments() -> None:
    text = """\
    @cache(maxsize=128 + 1, typed=True)
    @register(lambda x: x < 2)
    def f(
        a: Annotated[int, 3 - 1] = 5 - 1,
        *,
        b: list[int] = [1 < 2, min(1, 2)],
    ) -> Tuple[int, 7]:
        def g(c: int = 4 + 1) -> int:
            return c
        return a + b
    """
    source, found = mutants_of(text)
    header_of_g = source.text.index("    def g")
    body_of_g = source.text.index("        return c")
    decorated = [m for m in found if not m.in_place]
    found = [m for m in found if m.in_place]
    assert found
    # The arguments of f's decorator calls (not the callees, not what g's own header holds).
    arguments = (source.text.index("maxsize"), source.text.index("\ndef f"))
    assert decorated and all(arguments[0] <= m.start < arguments[1] for m in decorated)
    assert {m.line for m in decorated} == {8}
    for m in found:
        assert m.start >= header_of_g, m.description  # nothing in f's decorators or header
        assert m.line >= 8
        # nothing in g's default value or annotations: at most an insert before its def line
        assert not header_of_g < m.start < body_of_g, m.description
    assert {m.line for m in found if m.operator not in ("insert", "delete")} == {9, 10}


def test_a_function_on_one_line() -> None:
    _, found = mutants_of("def f(a): return a + 1\n")
    assert {m.operator for m in found} == {"arithmetic", "constant", "off_by_one"}
    assert {m.line for m in found} == {1}


@pytest.mark.parametrize(
    ("line", "replaced", "expected"),
    [
        pytest.param("    x = a + 1\n", "a + 1", 2, id="simple-statement"),
        pytest.param("    if a > 2:\n        pass\n", "a > 2", 2, id="if-header"),
        pytest.param(
            "    if a:\n        pass\n    elif a > 2:\n        pass\n", "a > 2", 4, id="elif-header"
        ),
        pytest.param("    while a < 3:\n        a += 1\n", "a < 3", 2, id="while-header"),
        pytest.param("    for i in range(a * 2):\n        pass\n", "a * 2", 2, id="for-header"),
        pytest.param("    with g(a - 1):\n        pass\n", "a - 1", 2, id="with-header"),
        pytest.param(
            "    try:\n        pass\n    except E(a * 2):\n        pass\n",
            "a * 2",
            4,
            id="except-header",
        ),
        pytest.param("    if a:\n        return a + 5\n", "a + 5", 3, id="in-a-block"),
        pytest.param("    return g(\n        a + 5,\n    )\n", "a + 5", 2, id="multi-line"),
    ],
)
def test_mutant_line_is_the_line_of_the_statement(line: str, replaced: str, expected: int) -> None:
    source, found = mutants_of("def f(a):\n" + line)
    lines = {m.line for m in found if source.text[m.start : m.end] == replaced}
    assert lines == {expected}


def test_mutant_line_in_a_method_is_the_line_in_the_file() -> None:
    source = SourceFile("mod.py", METHOD.encode())
    found = mutate.mutants(source, definition_of(source, "Shape.area"))
    by_code = {source.text[m.start : m.end]: m.line for m in found if m.operator != "insert"}
    assert by_code["width * height"] == 9
    assert by_code["total > 10"] == 10
    assert by_code["total -= 1"] == 11
    assert by_code["width - height"] == 12
    for m in found:
        assert source.lines[m.line - 1].strip()
        if m.operator not in ("insert", "delete"):
            assert source.text.count("\n", 0, m.start) + 1 == m.line  # one-line statements


def test_a_multi_line_string_less_indented_than_the_def_is_skipped() -> None:
    text = '''\
    class A:
        def f(self, a):
            x = """
    text
    """
            return a + 1

        def g(self, a):
            return a + 1
    '''
    source = source_file(text)
    assert mutate.mutants(source, definition_of(source, "A.f")) == []
    found = mutate.mutants(source, definition_of(source, "A.g"))
    assert "a - 1" in {m.replacement for m in found}


def test_a_multi_line_string_indented_with_the_method_is_kept() -> None:
    text = '''\
    class A:
        def f(self, a):
            x = g(a, """
            text
            """)
            return x
    '''
    source = source_file(text)
    found = mutate.mutants(source, definition_of(source, "A.f"))
    assert found
    for m in found:
        after = m.apply(source.text)
        assert compiles(after)
        kept = '"""\n        text\n        """' in after
        assert kept or m.operator in {"delete", "to_variable", "copy"}


def test_a_function_with_a_syntax_error_has_no_mutants() -> None:
    source = source_file("def f(a):\n    return a +\n")
    definition = Definition("f", 1, 2, 2)
    assert mutate.mutants(source, definition) == []


def test_mutant_descriptions() -> None:
    _, found = mutants_of("def f(a):\n    b = a\n    return a < 1\n")
    descriptions = {m.description for m in found}
    assert "`a < 1` → `a <= 1`" in descriptions
    assert "delete `b = a`" in descriptions
    assert "insert `b = a`" in descriptions
    assert {m.operator for m in found} >= {"comparison", "delete", "insert"}


def test_an_off_by_one_is_taken_away_with_its_parentheses() -> None:
    source = SourceFile("m.py", b"def f(xs):\n    return sum(xs) / (len(xs) + 1)\n")
    (definition,) = mutate.outermost(source)

    found = mutate.mutants(source, definition)

    dropped = [m for m in found if m.apply(source.text).endswith("sum(xs) / len(xs)\n")]
    assert len(dropped) == 1
    assert dropped[0].operator == "off_by_one"
    assert dropped[0].prior > max(m.prior for m in found if m.operator == "constant")


def test_an_attribute_becomes_another_attribute_of_the_same_object() -> None:
    text = """\
    class Rectangle:
        def area(self):
            return self.width * self.width

        def other(self):
            return self.height
    """
    source = source_file(textwrap.dedent(text))
    found = mutate.mutants(source, definition_of(source, "Rectangle.area"))

    # height is never named in area(), but the class names it: offered, less likely than one
    # the function itself names
    new = {m.replacement: m.prior for m in found if m.operator == "variable"}
    assert new == {"self.height": 0.4}

    text = text.replace("self.width * self.width", "self.width * self.width + 0 * self.height")
    source = source_file(textwrap.dedent(text))
    found = mutate.mutants(source, definition_of(source, "Rectangle.area"))
    lines = {
        m.apply(source.text).splitlines()[2].strip() for m in found if m.operator == "variable"
    }
    assert "return self.width * self.height + 0 * self.height" in lines
    assert "return self.height * self.width + 0 * self.height" in lines


@pytest.mark.parametrize(
    "line",
    [
        "return len(getattr(xs, 'more', ()))",
        "return xs[()]",
        "return ()",
        "ys = ()",
        "return xs == ()",
    ],
)
def test_an_empty_tuple_never_stops_the_search(line: str) -> None:
    # `()` cannot lose its parentheses (libcst refuses to print `() + 1`): one edit site that
    # cannot be mutated must not cost the function all of its other mutants.
    _, found = mutants_of(f"def f(xs):\n    {line}\n")

    assert found  # the other sites of the line still give mutants
    assert all(compiles(m.apply(f"def f(xs):\n    {line}\n")) for m in found)


def test_a_mutant_libcst_cannot_build_is_skipped_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_caretaker.builtin import sites

    def unprintable(node: object, prior: float, grouped: bool = False) -> Iterator[object]:
        yield cst.Tuple([], lpar=[], rpar=[]), 1.0  # libcst refuses to build this

    monkeypatch.setattr(sites, "off_by_one", unprintable)

    _, found = mutants_of("def f(xs):\n    return g(xs) < 3\n")

    assert found
    assert "off_by_one" not in {m.operator for m in found}


# -- module- and class-level assignments ---------------------------------------------------------

SHOP = """\
VAT = 0.25  # rate
LIMIT = 10
LIMIT += 5
area = lambda w, h: w * w


class Shop:
    RATE = 0.15

    def price(self, net):
        if net > LIMIT:
            return net
        return net * (1 + VAT + self.RATE)


def price(net):
    return net * (1 + VAT)
"""


@pytest.mark.parametrize(
    ("decimal", "expected"),
    [
        ("0.25", ["0.2", "0.24", "0.26"]),
        ("0.5", ["0.4", "0.6"]),
        ("0.21", ["0.2", "0.22"]),  # 0.20 is never written
        ("1.9", ["1.8"]),
        ("1e-3", []),
        ("0.1_5", []),
    ],
)
def test_decimal_literal_edits(decimal: str, expected: list[str]) -> None:
    from pytest_caretaker.builtin.literals import decimal as edits

    found = [node.value for node, _ in edits(cst.Float(decimal))]  # type: ignore[attr-defined]

    assert found == expected


def test_constants_a_function_reads_are_mutated_on_the_line_that_reads_them() -> None:
    source, found = mutants_of(SHOP, "price")
    constants = [m for m in found if m.function != "price"]

    assert {(m.function, m.line) for m in constants} == {("VAT", 17)}
    vat = [m for m in constants if m.description.startswith("`0.25` → `0.2` ")]
    assert [m.description for m in vat] == ["`0.25` → `0.2` in VAT (line 1), read"]
    after = vat[0].apply(source.text)
    assert after == source.text.replace("VAT = 0.25", "VAT = 0.2")
    assert mutate.function_source(source, vat[0]) == "VAT = 0.2  # rate\n"


def test_a_method_reads_its_class_attributes_and_the_augmented_form_too() -> None:
    source, found = mutants_of(SHOP, "Shop.price")
    lines = {(m.function, m.line) for m in found if m.function != "Shop.price"}

    assert lines == {("LIMIT", 11), ("VAT", 13), ("Shop.RATE", 13)}
    at = source.text.index("LIMIT += 5")
    assert [m for m in found if m.function == "LIMIT" and m.start < at]  # LIMIT = 10's
    later = [m for m in found if m.function == "LIMIT" and m.start >= at]
    (minus,) = [m for m in later if "LIMIT -= 5" in m.apply(source.text)]
    assert mutate.function_source(source, minus) == "LIMIT -= 5\n"
    rate = [m for m in found if m.function == "Shop.RATE" and "→ `0.1`" in m.description]
    assert mutate.function_source(source, rate[0]) == "RATE = 0.1\n"


def test_a_lambda_bound_to_a_name_is_mutated_as_a_unit() -> None:
    source = source_file(SHOP)
    assert [d.qualname for d in mutate.outermost(source)] == [
        *("VAT", "LIMIT", "LIMIT", "area", "Shop.RATE", "Shop.price", "price")
    ]
    found = mutate.mutants(source, definition_of(source, "area"))

    fixed = [m for m in found if m.apply(source.text).count("lambda w, h: w * h")]
    assert [(m.function, m.line, m.operator) for m in fixed] == [("area", 4, "variable")]
    assert mutate.function_source(source, fixed[0]) == "area = lambda w, h: w * h\n"


CART = """\
def rounded(digits=2):
    def wrap(f):
        def inner(*args):
            return round(f(*args), digits)
        return inner
    return wrap


class Cart:
    @rounded(digits=1)
    def total(self, prices):
        return sum(prices)
"""


def test_a_decorators_arguments_are_mutated_on_the_first_line_of_the_body() -> None:
    # The decorator ran at class definition, before any test: its arguments are edited with the
    # method, ranked by the line the method runs first, and cannot be swapped in place.
    source, found = mutants_of(CART, "Cart.total")
    decorated = [m for m in found if not m.in_place]

    assert {m.line for m in decorated} == {12}
    (two,) = [m for m in decorated if "@rounded(digits=2)" in m.apply(source.text)]
    assert two.function == "Cart.total"
    assert two.description == (
        "`1` → `2` in the decorator of Cart.total (line 10), whose body starts"
    )
    assert mutate.function_source(source, two).startswith("@rounded(digits=2)\ndef total(")
    assert all(m.in_place for m in found if m.start > source.text.index("def total"))
    # the name of the decorator is not a site
    assert not [m for m in decorated if "rounded(" not in m.apply(source.text)]


REGISTRY = """\
RATES = {}


def register(kind, rate):
    RATES[kind] = rate


register("standard", 0.25)
RATES["reduced"] = 0.05
RATES.update(zero=0)
print("imported")


def tax(net, kind="standard"):
    return round(net * RATES[kind], 2)
"""


def test_statements_that_change_a_name_a_function_reads_are_mutated_with_it() -> None:
    # They ran at import, before any test: ranked by the line that reads the name, and only a
    # fresh import of the candidate can tell (not in place).
    source, found = mutants_of(REGISTRY, "tax")
    statements = [m for m in found if not m.in_place]

    assert {(m.function, m.line) for m in statements} == {("RATES", 15)}
    edited = {source.text.count("\n", 0, m.start) + 1 for m in statements}
    assert edited == {8, 9, 10}  # register(…), RATES[…] = …, RATES.update(…); not print(…)
    (fixed,) = [m for m in statements if 'register("standard", 0.2)' in m.apply(source.text)]
    assert fixed.description == (
        "`0.25` → `0.2` in the statement on line 8, which changes RATES, read"
    )
    assert mutate.function_source(source, fixed) == 'register("standard", 0.2)\n'
    (update,) = [m for m in statements if "RATES.update(zero=1)" in m.apply(source.text)]
    assert mutate.function_source(source, update) == "RATES.update(zero=1)\n"
