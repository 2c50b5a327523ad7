"""The built-in repairer's explanation names every edit operator in words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_caretaker.builtin import operators
from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.builtin.explain import PHRASES, explain, phrase
from pytest_caretaker.builtin.operators import OPERATORS

BUILTIN = Path(operators.__file__).parent
#: Where the built-in repairer names an operator: sites' _add, families' _propose, Builder.add.
NAMED = re.compile(r'(?:_add|_propose|\.add)\(\s*[\w.]+,\s*"(\w+)"')
NEW_FAMILIES = {
    "to_variable": "an expression replaced by a variable bound earlier",
    "concat_swap": "operands of the concatenation swapped",
    "precedence": "parentheses added for precedence",
    "copy": "an expression copied from elsewhere in the function",
    "builtin_pair": "a function or method swapped for its counterpart",
}


def mutant(operator: str) -> Mutant:
    return Mutant("mod.py", "f", 7, operator, "`a` → `b`", 0.5, 0, 1, "b")


@pytest.mark.parametrize("operator", OPERATORS)
def test_every_operator_has_a_phrase(operator: str) -> None:
    assert operator in PHRASES, f"give {operator!r} a phrase in builtin/explain.py PHRASES"
    assert PHRASES[operator].strip()
    assert "_" not in PHRASES[operator]


def test_no_phrase_names_an_operator_that_does_not_exist() -> None:
    assert set(PHRASES) <= set(OPERATORS)


def test_every_operator_the_repairer_names_is_in_operators() -> None:
    named = {m for path in BUILTIN.glob("*.py") for m in NAMED.findall(path.read_text("utf-8"))}

    assert {"comparison", "concat_swap", "delete", "insert", "precedence"} <= named
    assert named <= set(OPERATORS)


@pytest.mark.parametrize(("operator", "words"), sorted(NEW_FAMILIES.items()))
def test_the_new_families_read_as_words(operator: str, words: str) -> None:
    explanation = explain(mutant(operator), 2)

    assert f"`a` → `b` on line 7 ({words}). The failing test passes" in explanation
    assert f"({operator.replace('_', ' ')})" not in explanation


def test_the_older_operators_read_as_the_readme_quotes_them() -> None:
    assert "on line 7 (off by one). " in explain(mutant("off_by_one"), 0)
    assert "on line 7 (constant). " in explain(mutant("constant"), 1)


def test_an_operator_without_a_phrase_is_shown_by_its_name() -> None:
    assert phrase("made_up") == "made up"
