"""Right fixes, not just green ones: `pytest --heal` with the built-in repairer on code whose
tests are weaker than the code. A fix the tests cannot tell from another is UNSURE, with the
input that separates them, and `--heal-write` does not commit it; a fix that only silences the
symptom (a deleted raise, a guard emptied to `pass`) is never a plain HEALED; an inverted guard
is healed by inverting its condition."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import TOOLS_MODEL, heal_args, last_run

from pytest_caretaker.testing import ScriptedServer, tool_call
from pytest_caretaker.verify import trials

pytestmark = pytest.mark.skipif(not trials.AVAILABLE, reason="weighing fixes needs trials")

AGES = """\
from datetime import date


def age(born: date, today: date) -> int:
    \"\"\"Whole years from born to today.\"\"\"
    years = today.year - born.year
    if (today.month, today.day) > (born.month, born.day):
        years -= 1
    return years
"""
AGE_TESTS = """\
from datetime import date

from ages import age


def test_before_birthday():
    assert age(date(1990, 6, 1), date(2024, 5, 1)) == 33


def test_after_birthday():
    assert age(date(1990, 6, 1), date(2024, 7, 1)) == 34
"""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def test_two_fixes_the_tests_cannot_tell_apart_are_unsure_and_not_committed(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(ages=AGES, test_ages=AGE_TESTS)
    git(pytester.path, "init", "-q", "-b", "main")
    git(pytester.path, "config", "user.name", "Dev")
    git(pytester.path, "config", "user.email", "dev@example.com")
    git(pytester.path, "add", "-A")
    git(pytester.path, "commit", "-q", "-m", "start")
    before = pytester.path.joinpath("ages.py").read_bytes()

    result = pytester.runpytest("--heal-write", "-p", "no:cacheprovider", "--heal-no-cache")

    text = result.stdout.str()
    assert "UNSURE test_ages.py::test_before_birthday" in text
    assert "HEALED test_ages.py" not in text
    # The birthday itself separates `<` from `<=`: the issue's own example.
    result.stdout.fnmatch_lines(
        [
            "  separating input: age(datetime.date(1990, 6, 1), datetime.date(2024, 6, 1)): "
            "this fix returns 34, the other returns 33",
        ]
    )
    assert "-    if (today.month, today.day) > (born.month, born.day):" in text
    assert "+    if (today.month, today.day) < (born.month, born.day):" in text
    assert "caretaker: 0 healed, 2 unsure, 0 not healed" in text
    # Never committed, never written without review.
    assert git(pytester.path, "log", "--format=%s") == "start\n"
    assert pytester.path.joinpath("ages.py").read_bytes() == before
    problem = last_run(pytester.path)["problems"][0]
    assert problem["outcome"] == "unsure"
    assert problem["doubt"]["call"] == "age(datetime.date(1990, 6, 1), datetime.date(2024, 6, 1))"
    # The patch holds the fix given, for a reviewer to take.
    patch = pytester.path.joinpath(".caretaker", "heal.patch").read_text()
    assert "+    if (today.month, today.day) < (born.month, born.day):" in patch


ORDERS = """\
def set_quantity(order, quantity):
    \"\"\"Set how many items the order holds; a quantity must be positive.\"\"\"
    if quantity > 0:
        raise ValueError("quantity must be positive")
    order["quantity"] = quantity
    return order


def describe(order):
    return f"{order.get('quantity', 0)} items"
"""
ORDER_TESTS = """\
from orders import describe, set_quantity


def test_sets_quantity():
    assert set_quantity({}, 3) == {"quantity": 3}


def test_describe():
    assert describe({"quantity": 2}) == "2 items"
"""


def test_a_validation_that_lost_its_not_is_not_healed_by_deleting_the_raise(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(orders=ORDERS, test_orders=ORDER_TESTS)

    result = pytester.runpytest("--heal", "-p", "no:cacheprovider", "--heal-no-cache")

    text = result.stdout.str()
    patch = pytester.path.joinpath(".caretaker", "heal.patch").read_text()
    # The raise stays: the fix changes the guard's condition, never deletes the check.
    assert '-        raise ValueError("quantity must be positive")' not in patch
    assert "-    if quantity > 0:" in patch
    # Whether 0 is a quantity, the tests do not say: UNSURE, with 0 as the separating input.
    assert "UNSURE test_orders.py::test_sets_quantity" in text
    result.stdout.fnmatch_lines(["  separating input: set_quantity({}, 0): *"])


PRICES = """\
def average_price(prices):
    \"\"\"The mean of prices; 0.0 when there are none.\"\"\"
    if prices:
        return 0.0
    return sum(prices) / len(prices)
"""
PRICE_TESTS = """\
from prices import average_price


def test_average():
    assert average_price([2.0, 4.0]) == 3.0


def test_average_of_one():
    assert average_price([5.0]) == 5.0
"""


def test_an_inverted_guard_is_healed_by_its_condition_not_by_emptying_its_body(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(prices=PRICES, test_prices=PRICE_TESTS)

    result = pytester.runpytest("--heal", "-p", "no:cacheprovider", "--heal-no-cache")

    result.stdout.fnmatch_lines(
        [
            "HEALED test_prices.py::test_average",
            "  -    if prices:",
            "  +    if not prices:",
            "  Fix by the built-in repairer (no model): `prices` → `not prices` on line 3 *"
            "Passed over: `return 0.0` → `pass` on line 4 empties a block *",
        ]
    )
    assert "caretaker: 2 healed, 0 not healed" in result.stdout.str()


WITHOUT_THE_CHECK = """\
def set_quantity(order, quantity):
    order["quantity"] = quantity
    return order
"""
THE_CHECK_INVERTED = """\
def set_quantity(order, quantity):
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    order["quantity"] = quantity
    return order
"""


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (WITHOUT_THE_CHECK, "UNSURE test_orders.py::test_sets_quantity"),
        (THE_CHECK_INVERTED, "HEALED test_orders.py::test_sets_quantity"),
    ],
    ids=["removes-the-raise", "inverts-the-guard"],
)
def test_a_models_fix_is_weighed_beyond_the_tests_too(
    pytester: pytest.Pytester, llm: ScriptedServer, code: str, said: str
) -> None:
    pytester.makepyfile(orders=ORDERS, test_orders=ORDER_TESTS)
    llm.script(
        tool_call(
            "The check was wrong.",
            [{"path": "orders.py", "function": "set_quantity", "code": code}],
        )
    )

    # The built-in repairer comes first (its trials weigh the model's fix), with no time of
    # its own: the model's fix is the one given.
    result = pytester.runpytest(
        *heal_args(llm, TOOLS_MODEL),
        "--heal-model",
        "builtin",
        "--heal-builtin-budget",
        "0.001",
        "-p",
        "no:cacheprovider",
        "--heal-no-cache",
    )

    text = result.stdout.str()
    assert said in text
    if said.startswith("UNSURE"):
        result.stdout.fnmatch_lines(
            ["  the tests cannot tell: the fix on line 2 removes a `raise` of the function*"]
        )
    else:
        assert "Beyond the failing tests it was run beside the original on " in text
