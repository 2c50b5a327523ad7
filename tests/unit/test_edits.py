"""Edits: proposals become text edits of the file; no-ops, repeats and broken code are dropped."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from pytest_caretaker.builtin.cut import Cut
from pytest_caretaker.builtin.edits import Builder, Mutant, node_edit, statement_edits
from pytest_caretaker.builtin.sites import Replacement, Sites
from pytest_caretaker.project.files import SourceFile

METHOD = """\
class A:
    def f(self, xs):
        n = len(xs)
        return (len(xs) + 1)
"""


def cut_of(text: str, qualname: str) -> Cut:
    source = SourceFile("mod.py", text.encode())
    definition = source.find(qualname)
    assert definition is not None
    cut = Cut.of(source, definition)
    assert cut is not None
    return cut


def builder(text: str = METHOD, qualname: str = "A.f") -> Builder:
    return Builder("mod.py", qualname, cut_of(text, qualname))


def descriptions(built: Builder) -> list[str]:
    return [m.description for m in built.found]


def test_a_mutant_is_a_splice_of_the_file_on_the_statement_line() -> None:
    built = builder()
    at = METHOD.index("+")
    built.add(3, "arithmetic", 0.7, at, at + 1, "-")
    (mutant,) = built.found
    assert mutant == Mutant("mod.py", "A.f", 4, "arithmetic", "`+` → `-`", 0.7, at, at + 1, "-")
    assert mutant.apply(METHOD) == METHOD.replace("+", "-")


def test_no_ops_repeats_and_code_that_does_not_compile_are_dropped() -> None:
    built = builder()
    at = METHOD.index("+")
    built.add(3, "arithmetic", 0.7, at, at + 1, "+")
    built.add(3, "arithmetic", 0.7, at, at + 1, "-")
    built.add(3, "swap", 0.5, at, at + 1, "-")
    built.add(3, "arithmetic", 0.7, at, at + 1, "+ *")
    built.add(3, "arithmetic", 0.7, at, at + 1, "=")
    assert descriptions(built) == ["`+` → `-`"]


def test_descriptions_say_insert_delete_or_what_becomes_what_on_one_short_line() -> None:
    built = builder()
    line = METHOD.index("        return")
    built.add(3, "insert", 0.2, line, line, "        xs = xs\n")
    built.add(3, "delete", 0.3, line, len(METHOD), "")
    start = METHOD.index("(len")
    built.add(3, "variable", 0.5, start, start + 14, "(len(xs) + " + "self.x + " * 6 + "1)")
    assert descriptions(built) == [
        "insert `xs = xs`",
        "delete `return (len(xs) + 1)`",
        "`(len(xs) + 1)` → `(len(xs) + self.x + self.x + self.x + self.x + self.x + sel…`",
    ]


def replacements_of(cut: Cut) -> tuple[cst.Module, MetadataWrapper, list[Replacement]]:
    module = cst.parse_module(cut.text)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    sites = Sites(module, cut.text_lines)
    wrapper.visit(sites)
    return module, wrapper, list(sites.replacements())


def test_a_new_atom_takes_the_place_of_the_parentheses_around_the_old_node() -> None:
    cut = cut_of(METHOD, "A.f")
    module, wrapper, found = replacements_of(cut)
    positions = wrapper.resolve(PositionProvider)
    (drop,) = [r for r in found if r.operator == "off_by_one" and isinstance(r.new, cst.Call)]
    assert module.code_for_node(drop.node) == "(len(xs) + 1)"
    start, end, new = node_edit(cut, module, positions[drop.node], drop)
    assert (METHOD[start:end], new) == ("(len(xs) + 1)", "len(xs)")
    minus, _ = [r for r in found if r.operator == "arithmetic"]
    start, end, new = node_edit(cut, module, positions[minus.node], minus)
    assert (METHOD[start:end], new) == ("len(xs) + 1", "len(xs) - 1")


def test_a_multi_line_node_is_written_at_its_statement_and_function_indentation() -> None:
    text = (
        "class A:\n    def f(self, a, b):\n"
        "        return g(\n"
        "            a,\n            b,\n        )\n"
    )
    cut = cut_of(text, "A.f")
    module, wrapper, found = replacements_of(cut)
    (swap,) = [r for r in found if r.operator == "swap"]
    start, end, new = node_edit(cut, module, wrapper.resolve(PositionProvider)[swap.node], swap)
    assert text[:start] + new + text[end:] == text.replace(
        "a,\n            b,", "b,\n            a,"
    )


def test_statement_edits_delete_insert_and_put_pass_in_an_emptied_block() -> None:
    text = "def f(a):\n    if a:\n        a = 1\n    return a"  # no final newline
    cut = cut_of(text, "f")
    module = cst.parse_module(cut.text)
    sites = Sites(module, cut.text_lines)
    MetadataWrapper(module, unsafe_skip_copy=True).visit(sites)
    built = Builder("mod.py", "f", cut)
    for block in sites.blocks:
        statement_edits(block, sites.copies, cut, built)
    head = "def f(a):\n    if a:\n"
    assert [(m.line, m.description, m.apply(text)) for m in built.found] == [
        (4, "delete `return a`", head + "        a = 1\n"),
        (2, "insert `return a`", "def f(a):\n    return a\n" + text[10:]),
        (2, "insert `a = 1`", "def f(a):\n    a = 1\n" + text[10:]),
        (4, "insert `return a`", text + "\n    return a"),
        (4, "insert `a = 1`", head + "        a = 1\n    a = 1\n    return a"),
        (4, "insert `a = 1`", text + "\n    a = 1\n"),
        (3, "`a = 1` → `pass`", head + "        pass\n    return a"),
        (3, "insert `return a`", head + "        return a\n        a = 1\n    return a"),
        (3, "insert `a = 1`", head + "        a = 1\n        a = 1\n    return a"),
        (3, "insert `return a`", head + "        a = 1\n        return a\n    return a"),
    ]
