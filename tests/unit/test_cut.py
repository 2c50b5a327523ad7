"""Cut: a function's dedented text, and every position of it mapped back to its file's text."""

from __future__ import annotations

import textwrap

import pytest

from pytest_caretaker.builtin.cut import Cut, indentation
from pytest_caretaker.project.files import SourceFile

METHOD = """\
import math


class Shape:
    def area(self, r):
        \"\"\"The area.\"\"\"

        return math.pi * r ** 2
"""


def cut_of(text: str, qualname: str) -> Cut:
    source = SourceFile("mod.py", text.encode())
    definition = source.find(qualname)
    assert definition is not None
    cut = Cut.of(source, definition)
    assert cut is not None
    return cut


def test_a_method_is_cut_out_and_dedented() -> None:
    cut = cut_of(METHOD, "Shape.area")
    assert cut.text == 'def area(self, r):\n    """The area."""\n\n    return math.pi * r ** 2\n'
    assert (cut.first, cut.indent, cut.newline) == (5, "    ", "\n")
    assert cut.stripped == (True, True, False, True)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_every_position_of_the_cut_is_the_same_character_of_the_file(newline: str) -> None:
    text = METHOD.replace("\n", newline)
    cut = cut_of(text, "Shape.area")
    assert cut.newline == newline
    for number, line in enumerate(cut.text_lines[:-1], start=1):
        for column, char in enumerate(line):
            assert text[cut.offset(number, column)] == char, (number, column)


def test_line_start_is_the_offset_of_a_line_and_stops_after_the_function() -> None:
    text = METHOD + "\n\ndef after():\n    pass\n"
    cut = cut_of(text, "Shape.area")
    assert text[cut.line_start(1) :].startswith("    def area")
    assert text[cut.line_start(4) :].startswith("        return")
    assert cut.line_start(5) == cut.line_start(99) == len(METHOD)


def test_code_is_indented_back_to_the_function_level() -> None:
    cut = cut_of(METHOD, "Shape.area")
    assert cut.indented("g(\n    a,\n\n)") == "g(\n        a,\n\n    )"
    assert cut_of("def f():\n    pass\n", "f").indented("g(\n    a,\n)") == "g(\n    a,\n)"


def test_a_line_less_indented_than_the_def_is_not_cut() -> None:
    text = textwrap.dedent('''\
        class A:
            def f(self):
                return """
        left
        """
        ''')
    source = SourceFile("mod.py", text.encode())
    definition = source.find("A.f")
    assert definition is not None
    assert Cut.of(source, definition) is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [("    x = 1\n", "    "), ("\t  x\n", "\t  "), ("x\n", ""), ("   \n", "   ")],
)
def test_indentation(line: str, expected: str) -> None:
    assert indentation(line) == expected
