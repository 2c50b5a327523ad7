"""Reach (reach.py, vocabulary.py, literals.magnitude, idioms.py): attributes and keys the module
or the failure names, numbers off by a power of ten, idiomatic indices, no-op edits dropped."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from pytest_caretaker.builtin import mutate, vocabulary
from pytest_caretaker.builtin.literals import magnitude
from pytest_caretaker.builtin.reach import Vocabulary
from pytest_caretaker.project.files import ProjectFiles, SourceFile
from pytest_caretaker.results import Failure, Frame


def source_of(text: str) -> SourceFile:
    return SourceFile("mod.py", textwrap.dedent(text).encode())


def edits(text: str, operator: str, qualname: str, words: Vocabulary | None = None) -> list[str]:
    """The descriptions of one family's mutants of qualname, in order."""
    source = source_of(text)
    definition = source.find(qualname)
    assert definition is not None
    return [
        m.description for m in mutate.mutants(source, definition, words) if m.operator == operator
    ]


GRAPH = """\
def run_order(tasks):
    ordered = [task for task in tasks if not task.incoming_nodes]
    for node in ordered:
        for nextnode in node.outgoing_nodes:
            if all(other in ordered for other in nextnode.outgoing_nodes):
                ordered.append(nextnode)
    return ordered
"""


def test_an_attribute_becomes_one_read_on_another_object() -> None:
    found = edits(GRAPH, "attribute", "run_order")
    assert "`nextnode.outgoing_nodes` → `nextnode.incoming_nodes`" in found
    assert not any("append" in said for said in found)  # a method is never a data attribute


def test_an_attribute_becomes_a_field_of_a_class_of_the_module() -> None:
    text = """\
    class Box:
        width: float
        depth: float

    def area(box):
        return box.width * box.width
    """
    assert "`box.width` → `box.depth`" in edits(text, "attribute", "area")


def test_a_module_s_attributes_are_left_alone() -> None:
    text = """\
    import math

    def f(x):
        return math.floor(x) + x.real
    """
    assert not any("math." in said for said in edits(text, "attribute", "f"))


ORDER = """\
def describe(line):
    return f'{line["qty"]} x {line["name"]}'

def total(lines):
    return sum(line["price"] * line["quantity"] for line in lines)

def flag(options):
    return options.get("verbose") or "debug" in options
"""


def test_a_key_becomes_the_likeliest_other_key_of_the_module() -> None:
    found = [s for s in edits(ORDER, "key", "total") if s.startswith('`"quantity"`')]
    assert found[0] == '`"quantity"` → `"qty"`'


def test_keys_of_get_and_in_are_sites_too() -> None:
    found = edits(ORDER, "key", "flag")
    assert any(s.startswith('`"verbose"` →') for s in found)
    assert any(s.startswith('`"debug"` →') for s in found)


def test_the_failure_s_dict_keys_come_first() -> None:
    words = Vocabulary(keys=("amount",), local_keys=(("line", ("amount", "sku")),))
    found = [s for s in edits(ORDER, "key", "total", words) if s.startswith('`"quantity"`')]
    assert found[:2] == ['`"quantity"` → `"amount"`', '`"quantity"` → `"sku"`']


def test_the_failure_s_locals_give_keys_fields_and_classes() -> None:
    frame = Frame(
        "shop.py",
        3,
        "total",
        (
            ("line", "{'qty': 2, 'price': 3.5}"),
            ("parcel", "Parcel(length=1, width=2, height=3)"),
            ("task", "<shop.Task object at 0x7f00>"),
        ),
    )
    case = Failure("t.py::test", "call", "t.py", "KeyError", "'quantity'", "", (frame,))
    files = ProjectFiles.__new__(ProjectFiles)
    code = b"class Task:\n    def __init__(self):\n        self.incoming = []\n"
    code += b"    def run(self):\n        pass\n"
    files.get = lambda rel: SourceFile(rel, code) if rel == "shop.py" else None  # type: ignore[method-assign]
    found = vocabulary.of_failure([case], files)
    assert found.keys == ("qty", "price")
    assert dict(found.local_keys) == {"line": ("qty", "price")}
    assert {"length", "width", "height", "incoming"} <= set(found.attributes)
    assert "run" in found.methods


@pytest.mark.parametrize(
    ("literal", "constant", "expected"),
    [
        ("500", True, ["5000", "50"]),
        ("0.02", True, ["0.2", "0.002"]),
        ("1e3", True, ["1e4", "1e2"]),
        ("5", True, ["50"]),  # an integer stays one: never 0.5
        ("1_000", True, ["10_000", "100"]),
        ("0x10", True, []),
        ("5", False, []),  # a small integer in code has no magnitude to get wrong
        ("100", False, ["1000", "10"]),
        ("2.5", False, ["25.0", "0.25"]),
    ],
)
def test_magnitude(literal: str, constant: bool, expected: list[str]) -> None:
    node = cst.parse_expression(literal)
    assert isinstance(node, (cst.Integer, cst.Float))
    assert [new.value for new, _ in magnitude(node, constant)] == expected  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "qualname", "expected"),
    [
        ("VAT = 0.02\n", "VAT", "`0.02` → `0.2`"),
        ("class Shop:\n    FREE = 500\n", "Shop.FREE", "`500` → `50`"),
        ("metres = lambda km: km * 100\n", "metres", "`100` → `1000`"),
    ],
)
def test_a_constant_a_class_constant_and_a_lambda_off_by_a_power_of_ten(
    text: str, qualname: str, expected: str
) -> None:
    assert expected in edits(text, "magnitude", qualname)


@pytest.mark.parametrize(
    ("line", "expected", "never"),
    [
        ("return xs[len(xs)]", "return xs[-1]", "return xs[len(xs) - 1]"),
        ("return xs[:len(xs)]", "return xs[:-1]", "return xs[:len(xs) - 1]"),
        ("return xs[1:]", "return xs", "return xs[0:]"),
    ],
)
def test_indices_and_slices_are_written_idiomatically(line: str, expected: str, never: str) -> None:
    source = source_of(f"def f(xs):\n    {line}\n")
    definition = source.find("f")
    assert definition is not None
    found = {
        m.apply(source.text).split("\n")[1].strip() for m in mutate.mutants(source, definition)
    }
    assert expected in found
    assert never not in found


def test_an_edit_that_does_nothing_is_dropped() -> None:
    source = source_of(
        "def f(json, data):\n    json = data\n    n = 1\n    n += 1\n    return json, n\n"
    )
    definition = source.find("f")
    assert definition is not None
    lines = {m.apply(source.text) for m in mutate.mutants(source, definition)}
    assert not any("json = json" in text or "n += 0" in text or "n *= 1" in text for text in lines)
