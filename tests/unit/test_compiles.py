"""Compiles: an edit compiles its statement only, and says what a compile of the whole function
would say (#46: a 700-line function compiled whole for each candidate took hours)."""

from __future__ import annotations

import textwrap

import pytest

from pytest_caretaker.builtin.compiles import Compiles
from pytest_caretaker.builtin.cut import Cut
from pytest_caretaker.project.files import SourceFile

LOOP = """\
def f(xs):
    total = 0
    for x in xs:
        if x > 1:
            total += x
        elif x < 0:
            total -= x
        else: total = 1
    return total
"""
METHOD = """\
class Shop:
    def price(self, n):
        class Inner:
            size = 1
        s = "é" + str(n)
        return s
"""
GLOBAL = """\
def g():
    t = 1
    global u
    u = t
"""


def compiles(text: str, qualname: str, old: str, new: str, line: int, lines: bool = False) -> bool:
    """Whether qualname compiles with the first old after its line (in the cut) made new."""
    source = SourceFile("mod.py", text.encode())
    definition = source.find(qualname)
    assert definition is not None
    cut = Cut.of(source, definition)
    assert cut is not None
    start = text.index(old, cut.line_start(line)) if old else cut.line_start(line)
    check = Compiles(cut)
    found = check(start, start + len(old), new, line, lines)
    # What a compile of the whole function says: the same.
    whole = text[cut.starts[0] : start] + new + text[start + len(old) : cut.starts[-1]]
    try:
        compile(textwrap.dedent(whole), "<whole>", "exec", dont_inherit=True)
    except SyntaxError:
        assert not found
    else:
        assert found
    return found


@pytest.mark.parametrize(
    ("text", "qualname", "old", "new", "line", "lines", "expected"),
    [
        (LOOP, "f", "", "            break\n", 5, True, True),  # inside the loop
        (LOOP, "f", "", "    break\n", 9, True, False),  # before the return: no loop
        (LOOP, "f", "", "    return 1\n", 9, True, True),
        (LOOP, "f", "x < 0", "x <", 6, False, False),  # an elif's header
        (LOOP, "f", "x < 0", "x < 1", 6, False, True),
        (LOOP, "f", "total = 1", "total = (1", 8, False, False),  # after `else:` on its line
        (LOOP, "f", "total = 1", "total = 2", 8, False, True),
        (LOOP, "f", "x > 1", "x = 1", 4, False, False),  # an if's header
        (LOOP, "f", "xs", "(xs, xs)", 3, False, True),  # a loop's header
        (LOOP, "f", "x", "1", 3, False, False),  # no target
        (LOOP, "f", "            total += x\n", "            pass\n", 5, True, True),  # deleted
        (METHOD, "Shop.price", "n", "self", 1, False, False),  # the same parameter twice
        (METHOD, "Shop.price", "", "            return 2\n", 3, True, False),  # a class body
        (METHOD, "Shop.price", "str(n)", "str(self)", 4, False, True),  # not ASCII
        (GLOBAL, "g", "", "    global t\n", 4, True, False),  # declared after its use
    ],
)
def test_an_edit_compiles_as_the_whole_function_would(
    text: str, qualname: str, old: str, new: str, line: int, lines: bool, expected: bool
) -> None:
    assert compiles(text, qualname, old, new, line, lines) is expected
