"""The pure logic of benchmarks/real_bugs*.py (the corpus of real bugs, issue #47): what a fix
changed, the oracle's reply, what a prompt shows, how a heal's outcome is read."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("tomllib")  # the benchmarks run on Python 3.11 or later
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import real_bugs_code as code
import real_bugs_lib as lib
import real_bugs_mine as mine
import real_bugs_oracle as oracle
import real_bugs_report as report
import real_bugs_run as runs

BEFORE = '''\
"""A module."""
import os

__version__ = "1.0"
LIMIT = 3


def total(values):
    """Add them."""
    return sum(values[:LIMIT])


class Box:
    size = 1

    def area(self):
        return self.size * self.size
'''


def changed(after: str) -> dict[str, str]:
    return {c.qualname: c.status for c in code.changes(BEFORE, after)}


def test_a_docstring_a_comment_or_the_version_is_no_change() -> None:
    after = BEFORE.replace('"""Add them."""', '"""Add them all."""  # really')
    after = after.replace('"1.0"', '"1.1"')

    assert changed(after) == {}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("values[:LIMIT]", "values[: LIMIT + 1]", {"total": "changed"}),
        ("self.size * self.size", "self.size**2", {"Box.area": "changed"}),
        ("    size = 1\n", "    size = 2\n", {"Box": "changed"}),
        ("LIMIT = 3", "LIMIT = 4", {"LIMIT": "changed"}),
        ("import os\n", "import os\nimport re\n", {"<imports>": "changed"}),
        ("\n\nclass Box", "\n\ndef helper():\n    pass\n\n\nclass Box", {"helper": "added"}),
    ],
)
def test_each_kind_of_definition_is_named_by_its_qualified_name(
    old: str, new: str, expected: dict[str, str]
) -> None:
    assert old in BEFORE
    assert changed(BEFORE.replace(old, new)) == expected


def test_a_method_whose_string_is_less_indented_is_taken_out_whole() -> None:
    source = 'class C:\n    def m(self):\n        return """\nx\n"""\n'

    text = code.definitions(source)["C.m"].text

    assert text.startswith("def m(self):\n    return")
    ast.parse(text)


def test_a_test_function_changed_by_its_parameters_counts_as_changed() -> None:
    old = "import pytest\n\n@pytest.mark.parametrize('x', [1])\ndef test_a(x):\n    assert x\n"
    new = old.replace("[1]", "[1, 2]") + "\n\nclass TestB:\n    def test_c(self):\n        pass\n"

    before, after = code.test_functions(old), code.test_functions(new)

    assert sorted(after) == ["TestB::test_c", "test_a"]
    assert before["test_a"] != after["test_a"]


def test_the_oracle_puts_a_new_helper_before_the_edit_that_calls_it() -> None:
    after = BEFORE.replace("return sum(values[:LIMIT])", "return _limited(values)")
    after += "\n\ndef _limited(values):\n    return sum(values[:LIMIT])\n"
    edits = [
        {"path": "m.py", "function": "Box.area", "code": "def area(self):\n    return 0\n"},
        {"path": "m.py", "function": "total", "code": code.definitions(after)["total"].text},
    ]
    (helper,) = [c for c in code.changes(BEFORE, after) if c.status == "added"]

    notes = oracle.with_helpers("m.py", edits, [helper])

    assert notes == []
    assert edits[0]["code"] == "def area(self):\n    return 0\n"
    assert edits[1]["code"].startswith("def _limited(values):")
    assert oracle.new_imports(BEFORE, after.replace("import os", "import os\nimport re")) == (
        "import re"
    )


def test_a_prompt_shows_a_definition_by_its_first_line_whatever_the_spacing() -> None:
    heads = {"m.py::total": "def total(values):", "m.py::Box": "class Box:"}
    prompt = "## m.py::total (editable)\n```python\n    def total(values):\n        ...\n```"

    assert oracle.shown(prompt, heads) == ["m.py::total"]


def bug(*tests: str) -> lib.Bug:
    return lib.Bug("p-1", "p", "f", "g", "2020-01-01", "Fix it", tests, (), (), ())


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ({"t::a": "healed", "t::b": "shared"}, "healed"),
        ({"t::a": "healed", "t::b": "unsure"}, "unsure"),
        ({"t::a": "healed", "t::b": "not healed"}, "not healed"),
        ({"t::a": "healed"}, "not healed"),
    ],
)
def test_a_bug_is_healed_when_every_failing_test_is(
    outcomes: dict[str, str], expected: str
) -> None:
    tests = [{"id": nodeid, "outcome": word} for nodeid, word in outcomes.items()]
    last_run = {"problems": [{"tests": tests, "reason": "no luck"}]}

    assert runs.outcome(last_run, bug("t::a", "t::b"))[0] == expected


@pytest.mark.parametrize(
    ("message", "fix"),
    [
        ("Fix intword for negative numbers", True),
        ("Issue #707: make iterate() stop", True),
        ("Add a strict keyword argument to chunked()", False),
        ("Issue 869: Add a steps argument to circular_shifts", False),
        ("Add more sample() tests and fix bug in strict option", True),
        ("Fix typo in the docs", False),
        ("Refactor the parser", False),
    ],
)
def test_a_commit_is_a_candidate_when_its_message_says_it_fixes_something(
    message: str, fix: bool
) -> None:
    assert mine.says_fix(message) is fix


def test_the_corpus_keeps_bugs_spread_over_a_projects_history() -> None:
    bugs = [
        lib.Bug(f"p-{n}", "p", "f", "g", f"20{10 + n}-01-01", "", (), (), (), ()) for n in range(9)
    ]

    kept = mine.spread(bugs[::-1], 3)

    assert [b.id for b in kept] == ["p-0", "p-4", "p-8"]


def test_alike_reasons_are_counted_together() -> None:
    reasons = [
        "fix refused: the fix removes the doctest example `f(1)` from m.py::f; keep it",
        "fix refused: the fix removes the doctest example `g(2)` from n.py::g; keep it",
    ]

    assert {report.kind(r) for r in reasons} == {"fix refused: the fix removes the doctest example"}


def test_the_corpus_loads_and_every_bug_names_its_project() -> None:
    projects, bugs = lib.load()

    assert len(projects) >= 5
    assert {b.project for b in bugs} <= set(projects)
    assert all(b.tests and len(b.fix) == 40 and len(b.parent) == 40 for b in bugs)
    assert textwrap.dedent(BEFORE) == BEFORE
