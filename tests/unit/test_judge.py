"""judge.py: which fix that passes the tests a reviewer would take, from a table of what the
original and each fix do on the tests' calls and derived inputs; UNSURE when the tests cannot
tell two fixes apart, or the only fix silences the symptom."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_caretaker.builtin.beyond import pasteable
from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.flags import own_raises, silences
from pytest_caretaker.builtin.judge import decide, outside_errors, weigh
from pytest_caretaker.results import Doubt
from pytest_caretaker.verify.protocol import Compared, Result

CHECK = """\
def check(value):
    if value >= 0:
        raise ValueError("negative")
    return value
"""


def mutant(
    description: str,
    line: int = 2,
    operator: str = "comparison",
    text: str = "",
    old: str = "",
    new: str = "",
) -> Mutant:
    start = text.index(old) if old else 0
    return Mutant("mod.py", "check", line, operator, description, 0.5, start, start + len(old), new)


def ret(value: str, group: int, kind: str = "int") -> Result:
    return {"kind": "return", "type": kind, "repr": value, "group": group, "line": 0}


def raise_(name: str, group: int, line: int = 0) -> Result:
    return {"kind": "raise", "type": name, "repr": "", "group": group, "line": line}


def row(call: str, origin: str, *results: Result) -> Compared:
    return {"call": call, "origin": origin, "results": list(results)}


def judged(mutants: Sequence[Mutant], table: Sequence[Compared], text: str = CHECK):
    return decide(weigh(mutants, text, table), table)


def test_two_fixes_that_differ_beyond_the_tests_are_unsure_with_the_input_that_separates_them():
    less, less_equal = mutant("`>` → `<`"), mutant("`>` → `<=`")
    table = [
        row("age(1, 5)", "failing", ret("33", 0), ret("34", 1), ret("34", 1)),
        row("age(1, 7)", "passing", ret("34", 0), ret("34", 0), ret("34", 0)),
        row("age(1, 1)", "derived: two arguments equal", ret("34", 0), ret("34", 0), ret("33", 1)),
    ]

    judgement = judged([less, less_equal], table)

    assert judgement.chosen.mutant is less  # it changes less of what the original did
    assert judgement.doubt == Doubt(
        "another fix passes them too: `>` → `<=` on line 2", "age(1, 1)", "returns 34", "returns 33"
    )
    assert judgement.rival is not None and judgement.rival.mutant is less_equal


def test_fixes_that_agree_on_every_input_are_one_fix_healed():
    plus, minus = mutant("`- 1` → `+ 1`"), mutant("`- 1` → `- -1`")
    table = [
        row("f(1)", "failing", ret("1", 0), ret("2", 1), ret("2", 1)),
        row("f(0)", "derived: 0", ret("0", 0), ret("1", 1), ret("1", 1)),
        # Running out of time says nothing either way.
        row(
            "f(9)",
            "derived: +1",
            ret("9", 0),
            {"kind": "timeout", "type": "", "repr": "", "group": 1, "line": 0},
            ret("10", 1),
        ),
    ]

    judgement = judged([plus, minus], table)

    assert judgement.doubt is None
    assert judgement.chosen.mutant is plus  # the search's order between equals


def test_a_deleted_raise_loses_to_the_inverted_condition_and_is_named_as_passed_over():
    deleted = mutant(
        'delete `raise ValueError("negative")`',
        3,
        "delete",
        CHECK,
        '        raise ValueError("negative")\n',
        "        pass\n",
    )
    inverted = mutant("`>=` → `<`", 2, "comparison")
    table = [
        row("check(5)", "failing", raise_("ValueError", 0), ret("5", 1), ret("5", 1)),
        row("check(-1)", "derived: negated", ret("-1", 0), ret("-1", 0), raise_("ValueError", 1)),
    ]

    judgement = judged([deleted, inverted], table)

    assert judgement.chosen.mutant is inverted
    assert judgement.doubt is None
    assert "delete `raise ValueError" in judgement.note and "deletes `raise" in judgement.note


def test_a_deleted_raise_alone_is_unsure_never_healed():
    deleted = mutant(
        'delete `raise ValueError("negative")`',
        3,
        "delete",
        CHECK,
        '        raise ValueError("negative")\n',
        "        pass\n",
    )
    table = [
        row("check(5)", "failing", raise_("ValueError", 0), ret("5", 1)),
        row("check(6)", "derived: +1", raise_("ValueError", 0), ret("6", 1)),
    ]

    judgement = judged([deleted], table)

    assert judgement.doubt is not None
    assert "deletes `raise ValueError" in judgement.doubt.reason
    assert (judgement.doubt.call, judgement.doubt.outcome, judgement.doubt.other) == (
        "check(6)",
        "returns 6",
        "raises ValueError",
    )


def test_a_new_exception_where_the_original_returned_ranks_a_fix_down():
    indexes, guards = mutant("`0` → `1`"), mutant("`>` → `>=`")
    table = [
        row("median([3])", "failing", ret("0", 0), ret("3", 1), ret("3", 1)),
        row(
            "median([])",
            "derived: empty",
            ret("None", 0, "NoneType"),
            raise_("IndexError", 1),
            ret("None", 0, "NoneType"),
        ),
    ]

    judgement = judged([indexes, guards], table, "def check(xs):\n    return xs\n")

    assert judgement.chosen.mutant is guards
    assert judgement.doubt is None
    assert "raises IndexError on `median([])`, where the original returns `None`" in (
        judgement.note
    )


def test_an_exception_the_original_raises_on_another_input_is_not_new():
    plus = mutant("`- w` → `- w + 1`")
    table = [
        row("avg([1, 2], 1)", "failing", ret("[1]", 0), ret("[1, 2]", 1)),
        row(
            "avg([1, 2], 0)",
            "derived: 0",
            raise_("ZeroDivisionError", 0),
            raise_("ZeroDivisionError", 0),
        ),
        row("avg([], 0)", "derived: 0", ret("[]", 0), raise_("ZeroDivisionError", 1)),
    ]

    assert judged([plus], table, "def check(xs, w):\n    return xs\n").doubt is None


def test_a_raise_the_fix_never_reaches_is_flagged():
    text = "def check(x):\n    if x > 3:\n        raise ValueError\n    return x\n"
    guard = mutant("`x > 3` → `False`")
    table = [
        row("check(1)", "failing", ret("1", 0), ret("2", 1)),
        row("check(4)", "derived: +1", raise_("ValueError", 0), ret("4", 1)),
    ]

    judgement = judged([guard], table, text)

    assert judgement.doubt is not None
    assert "never raises ValueError, which the original raises on `check(4)`" in (
        judgement.doubt.reason
    )


def test_a_return_type_the_original_never_returned_is_flagged_unless_the_tests_endorse_it():
    emptied = mutant("`return 0.0` → `pass`")
    table = [
        row("mean([2])", "failing", ret("0.0", 0, "float"), ret("2.0", 1, "float")),
        row("mean([])", "derived: empty", ret("0.0", 0, "float"), ret("None", 1, "NoneType")),
    ]
    judgement = judged([emptied], table, "def check(xs):\n    return 0.0\n")
    assert judgement.doubt is not None
    assert "returns NoneType on `mean([])`" in judgement.doubt.reason

    # The failing test passes with an int: the tests endorse the type.
    endorsed = [
        row("half(3)", "failing", ret("1.5", 0, "float"), ret("1", 1, "int")),
        row("half(5)", "derived: +1", ret("2.5", 0, "float"), ret("2", 1, "int")),
    ]
    assert judged([emptied], endorsed, "def check(x):\n    return x\n").doubt is None

    # An int and a float are one kind: a float passed through where the original returned an
    # int bound is no new type.
    passed_through = [
        row("clamp(11, 0, 10)", "failing", ret("0", 0), ret("10", 1)),
        row("clamp(0.0, 0, 10)", "derived: 0", ret("10", 0), ret("0.0", 1, "float")),
    ]
    assert judged([emptied], passed_through, "def check(x):\n    return x\n").doubt is None


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('        raise ValueError("negative")\n', "        pass\n", "deletes `raise"),
        ("    assert value\n", "", "deletes `assert value`"),
        ("    return value\n", "    pass\n", "empties a block (`return value` becomes `pass`)"),
        ("    x = 1\n", "", ""),
    ],
)
def test_what_a_deletion_silences(old: str, new: str, says: str) -> None:
    text = CHECK.replace("    return value\n", "    assert value\n    x = 1\n    return value\n")
    deleted = mutant("delete", 3, "delete", text, old, new)
    said = silences(deleted, text)
    assert said.startswith(says) if says else said == ""
    assert silences(mutant("`>=` → `<`"), text) == ""  # not a deletion


def test_the_raises_of_a_function_are_read_from_its_own_source():
    text = (
        "class A:\n    def check(self):\n        raise errors.Bad('x')\n\n\n"
        "def f():\n    raise KeyError\n"
    )
    assert own_raises(text, "A.check") == {"Bad"}
    assert own_raises(text, "f") == {"KeyError"}
    assert own_raises(text, "missing") == frozenset()


def test_a_separating_call_becomes_a_test_to_paste():
    doubt = Doubt(
        "r", "age(datetime.date(1990, 6, 1), datetime.date(2024, 6, 1))", "returns 34", "returns 33"
    )
    assert pasteable("src/people/ages.py", "age", doubt) == (
        "import datetime\n"
        "from people.ages import age\n"
        "\n"
        "\n"
        "def test_age_separating():\n"
        "    assert age(datetime.date(1990, 6, 1), datetime.date(2024, 6, 1)) == 34"
        "  # the other: returns 33\n"
    )
    raising = Doubt("r", "mean([])", "raises ZeroDivisionError", "returns 0.0")
    assert "    with pytest.raises(ZeroDivisionError):\n        mean([])\n" in pasteable(
        "stats.py", "mean", raising
    )
    # An object's repr, or a method, is no Python to paste.
    assert pasteable("a.py", "f", Doubt("r", "f(<A object at 0x1>)", "returns 1")) == ""
    assert pasteable("a.py", "A.f", Doubt("r", "A.f(1)", "returns 1")) == ""


def test_two_fixes_that_differ_only_where_the_original_fails_anyway_are_one() -> None:
    # grade(5, 9): scale 9 has no suffix; the original raises KeyError on such a scale too, so
    # that one fix reaches the lookup there and the other does not tells them not apart.
    boundary, shifted = mutant("`<` → `<=`"), mutant("`score` → `(score - 1)`")
    table = [
        row("grade(5, 10)", "failing", ret("'pass'", 0), ret("'fail'", 1), ret("'fail'", 1)),
        row(
            "grade(6, 9)",
            "derived: +1",
            raise_("KeyError", 0),
            raise_("KeyError", 0),
            raise_("KeyError", 0),
        ),
        row(
            "grade(5, 9)",
            "derived: -1",
            raise_("KeyError", 0),
            raise_("KeyError", 0),
            ret("'fail'", 1),
        ),
    ]
    text = "def check(score, scale):\n    return score\n"
    weighed = weigh([boundary, shifted], text, table)

    assert decide(weighed, table, outside_errors(table, own_raises(text, "check"))).doubt is None
    assert decide(weighed, table).doubt is not None  # told apart, were KeyError its own


def test_an_exception_the_edited_line_raises_itself_is_no_new_exception() -> None:
    # `sum(xs) / len(xs)` for `sum(xs) / (len(xs) + 1)`: `[]` divides by zero on the edited line,
    # where the bug's `+ 1` hid it; the fix is the mean a reviewer expects.
    divides = mutant("`(len(xs) + 1)` → `len(xs)`", line=2)
    table = [
        row("mean([1, 2, 3])", "failing", ret("1.5", 0, "float"), ret("2.0", 1, "float")),
        row(
            "mean([])",
            "derived: empty",
            ret("0.0", 0, "float"),
            raise_("ZeroDivisionError", 1, line=2),
        ),
    ]
    text = "def check(xs):\n    return sum(xs) / (len(xs) + 1)\n"
    assert judged([divides], table, text).doubt is None
    # Raised on another line than the edited one (an input let through to code that fails):
    raised_later = [
        table[0],
        row(
            "mean([])",
            "derived: empty",
            ret("0.0", 0, "float"),
            raise_("ZeroDivisionError", 1, line=5),
        ),
    ]
    assert judged([divides], raised_later, text).doubt is not None
