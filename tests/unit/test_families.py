"""Edit families beyond one token (families.py, shapes.py): before/after source, bounds, and
mutants that read as a developer would write them (literals folded, no redundant parentheses)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from pytest_caretaker.builtin import mutate
from pytest_caretaker.builtin.families import NEAREST
from pytest_caretaker.builtin.shapes import concat_swap, method_pair, regroup
from pytest_caretaker.project.files import SourceFile


def after(text: str, operator: str | None = None, qualname: str | None = None) -> set[str]:
    """The whole file after each mutant (of one operator family, if given)."""
    source = SourceFile("mod.py", textwrap.dedent(text).encode())
    definition = source.find(qualname) if qualname else mutate.outermost(source)[0]
    assert definition is not None
    found = mutate.mutants(source, definition)
    return {m.apply(source.text) for m in found if operator in (None, m.operator)}


def body(line: str, operator: str | None = None) -> set[str]:
    """The new body line of ``def f(a, b, xs):`` holding line, after each mutant."""
    text = f"def f(a, b, xs):\n    {line}\n"
    return {new.split("\n")[1].strip() for new in after(text, operator)}


def shape(code: str, transform: object) -> set[str]:
    node = cst.parse_expression(code)
    return {cst.Module([]).code_for_node(new) for new, _ in transform(node)}  # type: ignore[operator]


# -- node-local shapes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        ('"Hello, " + name', {'name + "Hello, "'}),
        ('name + f"{n}!"', {'f"{n}!" + name'}),
        ('first + " " + last', {'first + last + " "'}),  # the text and its neighbour
        ("a + b", set()),  # no text: + of numbers is commutative
        ('b"x" + data', set()),  # bytes are not the text this family is for
    ],
)
def test_concat_swap(before: str, expected: set[str]) -> None:
    assert shape(before, concat_swap) == expected


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        ("name.startswith", {"name.endswith"}),
        ("name.endswith", {"name.startswith"}),
        ("math.ceil", {"math.floor"}),
        ("text.rstrip", {"text.lstrip"}),
        ("text.strip", set()),
    ],
)
def test_method_pair(before: str, expected: set[str]) -> None:
    assert shape(before, method_pair) == expected


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        ("fahrenheit - 32 * 5 / 9", {"(fahrenheit - 32) * 5 / 9"}),
        ("a + b * c", {"(a + b) * c"}),
        ("a * b + c", {"a * (b + c)"}),
        ("total - discount + tax", {"total - (discount + tax)"}),
        ("a + b - c", set()),  # (a + b) - c is a + (b - c)
        ("a * (b + c)", set()),  # the author's parentheses are kept
        ("not a == b", {"(not a) == b"}),
        ("not a", set()),
    ],
)
def test_regroup(before: str, expected: set[str]) -> None:
    assert shape(before, regroup) == expected


def test_regroup_keeps_the_meaning_it_describes() -> None:
    new = shape("f - 32 * 5 / 9", regroup).pop()
    assert eval(new, {"f": 212}) == 100


# -- the families in a function -----------------------------------------------------------------


def test_to_variable_uses_a_name_bound_before_the_statement() -> None:
    text = """\
    def pad(cells, text):
        width = max(len(c) for c in cells)
        return text.ljust(len(text))
    """
    found = after(text, "to_variable")
    assert "    return text.ljust(width)\n" in {t.split("\n")[2] + "\n" for t in found}
    # never a name the expression reads, nor a comprehension's own variable
    assert not any("ljust(text)" in t or "ljust(c)" in t for t in found)


def test_to_variable_never_a_name_bound_later() -> None:
    text = "def f(a, xs):\n    y = len(xs)\n    z = a\n    return y\n"
    found = after(text, "to_variable")
    assert "def f(a, xs):\n    y = a\n    z = a\n    return y\n" in found
    assert not any("y = z" in t or "y = y" in t for t in found)


def test_to_variable_and_copy_are_bounded() -> None:
    params = ", ".join(f"p{i}" for i in range(10))
    calls = "\n".join(f"    q{i} = g(p{i})" for i in range(10))
    text = f"def f({params}):\n{calls}\n    return g(p0) + 1\n"
    source = SourceFile("mod.py", text.encode())
    found = mutate.mutants(source, mutate.outermost(source)[0])
    last = text.count("\n")
    for operator in ("to_variable", "copy"):
        at_last = [m for m in found if m.operator == operator and m.line == last]
        assert 0 < len(at_last) <= 2 * NEAREST  # g(p0) and g(p0) + 1: NEAREST each at most


def test_copy_takes_an_expression_of_the_same_kind_from_elsewhere() -> None:
    text = """\
    def scale(x, lo, hi):
        span = hi - lo
        return (x - lo) / (hi - x)
    """
    found = after(text, "copy")
    assert "    return (x - lo) / (hi - lo)\n" in {t.split("\n")[2] + "\n" for t in found}
    assert not any("len(" in t for t in found)


def test_copy_calls_only_of_the_same_function() -> None:
    found = body("return g(a) + h(b) + g(xs)", "copy")
    assert "return g(a) + h(b) + g(a)" in found
    assert "return g(a) + h(b) + h(b)" not in found


def test_an_attribute_written_becomes_another_of_the_class() -> None:
    text = """\
    class Box:
        def __init__(self, w, h):
            self.w = w
            self.w = h

        def area(self):
            return self.w * self.h
    """
    found = after(text, "variable", "Box.__init__")
    assert any("        self.w = w\n        self.h = h\n" in t for t in found)


def test_string_concatenation_swapped_in_a_function() -> None:
    assert body("return '.txt' + a", "concat_swap") == {"return a + '.txt'"}


def test_precedence_in_a_function() -> None:
    assert "return (a - 32) * 5 / 9" in body("return a - 32 * 5 / 9", "precedence")


# -- read as a developer would write them ----------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "folded", "unfolded"),
    [
        ("return xs[-2]", {"return xs[-1]", "return xs[-3]"}, {"return xs[-2 + 1]"}),
        ("return xs[-1]", {"return xs[0]"}, {"return xs[-0]", "return xs[-1 + 1]"}),
        ("return xs[a + 1]", {"return xs[a + 2]", "return xs[a]"}, {"return xs[a + 1 + 1]"}),
        ("return xs[a - 2]", {"return xs[a - 1]", "return xs[a - 3]"}, {"return xs[a - 2 - 1]"}),
        ("return a + 1", {"return a"}, {"return a + 0"}),
        ("return g('x')", set(), {"return g('x' + 1)"}),
    ],
)
def test_literals_are_folded(line: str, folded: set[str], unfolded: set[str]) -> None:
    found = body(line)
    assert folded <= found
    assert not unfolded & found


@pytest.mark.parametrize(
    ("line", "needed", "redundant"),
    [
        ("return g(a * b)", "return g(a + b)", "return g((a + b))"),
        ("return a * b < c", "return a + b < c", "return (a + b) < c"),
        ("return xs[a * b]", "return xs[a + b]", "return xs[(a + b)]"),
        ("return -(a) * b", "return -(a) + b", "return (-(a) + b)"),
        ("return a - b * c", "return a - (b + c)", "return a - b + c"),
        ("return (a * b).real", "return (a + b).real", "return a + b.real"),
    ],
)
def test_parentheses_only_where_needed(line: str, needed: str, redundant: str) -> None:
    found = body(line, "arithmetic")
    assert needed in found
    assert redundant not in found
