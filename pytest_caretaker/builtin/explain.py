"""How the built-in repairer explains a fix: the edit, its line and its kind, and what passing
the check shows (and does not)."""

from __future__ import annotations

from pytest_caretaker.builtin.edits import Mutant
from pytest_caretaker.text import plural

#: The operator of a partial revert (reverts.py).
REVERT = "revert"
#: Joins the operators of a two-edit candidate (search.pairs): "comparison+off_by_one".
PAIR = "+"
#: How an explanation names each operator (operators.OPERATORS), after the edit and its line.
#: The first ten read as their names always have: the README quotes "(off by one)".
PHRASES = {
    "comparison": "comparison",
    "arithmetic": "arithmetic",
    "boolean": "boolean",
    "constant": "constant",
    "off_by_one": "off by one",
    "variable": "variable",
    "swap": "swap",
    "unwrap": "unwrap",
    "delete": "delete",
    "insert": "insert",
    "builtin_pair": "a function or method swapped for its counterpart",
    "to_variable": "an expression replaced by a variable bound earlier",
    "copy": "an expression copied from elsewhere in the function",
    "concat_swap": "operands of the concatenation swapped",
    "precedence": "parentheses added for precedence",
    "magnitude": "a number off by a power of ten",
    "attribute": "another attribute the code names",
    "key": "another key the data holds",
}


def explain(mutant: Mutant, neighbours: int, proof: str | None = None) -> str:
    if mutant.operator == REVERT:
        return _revert(mutant, neighbours, proof)
    if proof is not None:
        return (
            f"Plausible fix by the built-in repairer (no model): {mutant.description} on line "
            f"{mutant.line} ({phrase(mutant.operator)}). {proof}; that does not prove it is the "
            "intended fix, so read the diff."
        )
    checked = (
        f"and its {plural(neighbours, 'passing neighbour')} "
        + ("still passes" if neighbours == 1 else "still pass")
        if neighbours
        else "(it has no passing neighbours to check against)"
    )
    return (
        f"Plausible fix by the built-in repairer (no model): {mutant.description} on line "
        f"{mutant.line} ({phrase(mutant.operator)}). The failing test passes {checked}; "
        f"{UNPROVED}"
    )


#: What a fix not weighed beyond the tests says of itself (judge.py: one that is, says more).
UNPROVED = "passing the tests does not prove it is the intended fix, so read the diff."


def beyond(explanation: str, said: str, sure: bool) -> str:
    """explanation with what was found beyond the tests (said, a sentence) in place of
    UNPROVED; a fix proved beyond its failing tests (sure) is no longer called plausible."""
    if UNPROVED not in explanation:
        return f"{explanation} {said}"
    explanation = explanation.replace(f"; {UNPROVED}", f". {said}", 1)
    return explanation.replace("Plausible fix", "Fix", 1) if sure else explanation


def _revert(mutant: Mutant, neighbours: int, proof: str | None) -> str:
    """A partial revert undoes what someone meant to do: say whose change, and ask for a look."""
    if proof is not None:
        shown = proof
    elif neighbours:
        still = "still passes" if neighbours == 1 else "still pass"
        shown = f"The failing test passes and its {plural(neighbours, 'passing neighbour')} {still}"
    else:
        shown = "The failing test passes (it has no passing neighbours to check against)"
    return (
        f"Partial revert by the built-in repairer (no model): {mutant.description}, in "
        f"{mutant.function}. {shown}. A revert undoes what that commit meant to do: read it, "
        "and keep its intent some other way if it still matters."
    )


def phrase(operator: str) -> str:
    """The operator as its explanation names it (a pair's as its two's), an operator without
    a phrase by its name."""
    if PAIR in operator:
        return " and ".join(phrase(part) for part in operator.split(PAIR))
    return PHRASES.get(operator, operator.replace("_", " "))
