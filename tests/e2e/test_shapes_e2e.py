"""Every code shape a bug lives in is editable: `pytest --heal` on small projects whose bug is a
module-level constant, a class attribute or a lambda bound to a name, healed by the scripted model
and (a constant one literal away) by the built-in repairer; the patch then makes pytest pass."""

from __future__ import annotations

import json
import subprocess

import pytest
from helpers import heal_args

from pytest_caretaker.testing import ScriptedServer, tool_call

SHOP = """\
# Prices, tax included.
VAT = 0.25  # the standard rate


def price(net):
    return round(net * (1 + VAT), 2)
"""
TEST_SHOP = """\
from shop import price


def test_price():
    assert price(100) == 120


def test_free():
    assert price(0) == 0
"""
CART = """\
class Cart:
    DISCOUNT: float = 0.5

    def __init__(self, total):
        self.total = total

    def due(self):
        return round(self.total * (1 - self.DISCOUNT), 2)
"""
TEST_CART = """\
from cart import Cart


def test_due():
    assert Cart(100).due() == 90


def test_empty():
    assert Cart(0).due() == 0
"""
GEOM = """\
area = lambda w, h: w * w
"""
TEST_GEOM = """\
from geom import area


def test_area():
    assert area(2, 3) == 6


def test_square():
    assert area(2, 2) == 4
"""


def healed_patch_passes(pytester: pytest.Pytester) -> None:
    """heal.patch applies with git, and a plain pytest run then passes every test."""
    for args in (["apply", "--check"], ["apply"]):
        subprocess.run(["git", *args, ".caretaker/heal.patch"], cwd=pytester.path, check=True)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()


def user_prompt(llm: ScriptedServer) -> str:
    return str(llm.requests[0]["messages"][1]["content"])


def test_wrong_module_constant_is_healed_by_the_model(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(shop=SHOP, test_shop=TEST_SHOP)
    edit = {"path": "shop.py", "function": "VAT", "code": "VAT = 0.2\n"}
    llm.script(tool_call("The VAT rate is 20 %.", [edit]))

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(
        [
            "HEALED test_shop.py::test_price",
            "  patched shop.py::VAT",
            "  -VAT = 0.25  # the standard rate",
            "  +VAT = 0.2  # the standard rate",
            "caretaker: 1 healed, 0 not healed *",
        ]
    )
    # The model was shown the constant the suspect reads, as a target of its own.
    assert "## shop.py::VAT (editable)\n```python\nVAT = 0.25  # the standard rate\n```" in (
        user_prompt(llm)
    )
    healed_patch_passes(pytester)


def test_wrong_class_attribute_is_healed_by_the_model(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(cart=CART, test_cart=TEST_CART)
    code = "class Cart:\n    DISCOUNT: float = 0.1\n"
    llm.script(tool_call("10 % off.", [{"path": "cart.py", "function": "Cart", "code": code}]))

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(
        [
            "HEALED test_cart.py::test_due",
            "  patched cart.py::Cart.DISCOUNT",
            "  -    DISCOUNT: float = 0.5",
            "  +    DISCOUNT: float = 0.1",
        ]
    )
    assert "## cart.py::Cart.DISCOUNT (editable)" in user_prompt(llm)
    healed_patch_passes(pytester)


def test_wrong_lambda_is_healed_by_the_model_and_is_no_test_code(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(geom=GEOM, test_geom=TEST_GEOM)
    code = "area = lambda w, h: w * h\n"
    llm.script(
        tool_call("Width times height.", [{"path": "geom.py", "function": "area", "code": code}])
    )

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(
        [
            "HEALED test_geom.py::test_area",
            "  patched geom.py::area",
            "  -area = lambda w, h: w * w",
            "  +area = lambda w, h: w * h",
        ]
    )
    assert "## geom.py::area (editable)" in user_prompt(llm)
    healed_patch_passes(pytester)


def test_wrong_module_constant_is_healed_by_the_builtin_repairer(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(shop=SHOP, test_shop=TEST_SHOP)

    result = pytester.runpytest("--heal")

    result.stdout.fnmatch_lines(
        [
            "HEALED test_shop.py::test_price",
            "  patched shop.py::VAT",
            "  -VAT = 0.25  # the standard rate",
            "  +VAT = 0.2  # the standard rate",
            "  Plausible fix by the built-in repairer (no model): `0.25` → `0.2` in VAT (line 2), "
            "read on line 6 (constant).*",
        ]
    )
    healed_patch_passes(pytester)


def test_wrong_lambda_is_healed_by_the_builtin_repairer(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(geom=GEOM, test_geom=TEST_GEOM)

    result = pytester.runpytest("--heal")

    result.stdout.fnmatch_lines(["HEALED test_geom.py::test_area", "  patched geom.py::area"])
    healed_patch_passes(pytester)
    # w * h or h * w: the first variable swap that passes
    assert (pytester.path / "geom.py").read_text().strip() in (
        "area = lambda w, h: w * h",
        "area = lambda w, h: h * w",
    )


def test_the_healed_constant_is_what_the_transcript_records(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(shop=SHOP, test_shop=TEST_SHOP)
    llm.script(tool_call("20 %.", [{"path": "shop.py", "function": "VAT", "code": "VAT = 0.2\n"}]))

    pytester.runpytest(*heal_args(llm))

    patch = (pytester.path / ".caretaker" / "heal.patch").read_text()
    assert "-VAT = 0.25  # the standard rate\n+VAT = 0.2  # the standard rate\n" in patch
    assert json.dumps("def price") not in patch  # price itself is untouched


HALVE = '''\
def halve(n):
    """Half of n.

    >>> halve(10)
    5
    """
    return n // 3
'''
DOCTESTS = "[pytest]\naddopts = --doctest-modules\n"


def test_a_failing_doctest_is_healed_in_the_function_it_runs(pytester: pytest.Pytester) -> None:
    # The module holds a test (its doctest) but is code under test, not test code.
    pytester.makepyfile(calc=HALVE)
    pytester.makefile(".ini", pytest=DOCTESTS)

    result = pytester.runpytest("--heal")

    result.stdout.fnmatch_lines(
        ["HEALED calc.py::calc.halve", "  patched calc.py::halve", "  +    return n // 2"]
    )


def test_a_fix_that_rewrites_what_a_doctest_expects_is_refused(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(calc=HALVE)
    pytester.makefile(".ini", pytest=DOCTESTS)
    expects_three = HALVE.replace("    5\n", "    3\n")
    halves = HALVE.replace("n // 3", "n // 2")
    llm.script(
        tool_call(
            "It is a third.", [{"path": "calc.py", "function": "halve", "code": expects_three}]
        ),
        tool_call("Half, not a third.", [{"path": "calc.py", "function": "halve", "code": halves}]),
    )

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED calc.py::calc.halve", "*2 attempts*"])
    retry = str(llm.requests[1]["messages"])
    assert "the fix changes what the doctest example `halve(10)` in calc.py::halve expects" in retry


ROUNDED = """\
def rounded(digits=2):
    def wrap(f):
        def inner(*args):
            return round(f(*args), digits)

        return inner

    return wrap


class Till:
    @rounded(digits=1)
    def total(self, prices):
        return sum(prices)

    @rounded()
    def tip(self, amount):
        return amount * 0.125
"""
TEST_ROUNDED = """\
from till import Till


def test_total():
    assert Till().total([1.234, 2.0]) == 3.23


def test_tip():
    assert Till().tip(9) == 1.12
"""


def test_a_wrong_decorator_argument_in_a_class_body_is_healed_by_the_builtin_repairer(
    pytester: pytest.Pytester,
) -> None:
    # `digits=1` ran when the class was defined, before any test, and the method's own code is
    # right: the fix is in the decorator's arguments, which the trials cannot swap in place.
    pytester.makepyfile(till=ROUNDED, test_till=TEST_ROUNDED)

    result = pytester.runpytest("--heal")

    result.stdout.fnmatch_lines(
        [
            "HEALED test_till.py::test_total",
            "  patched till.py::Till.total",
            "  -    @rounded(digits=1)",
            "  +    @rounded(digits=2)",
            "  Plausible fix by the built-in repairer (no model): `1` → `2` in the decorator of "
            "Till.total (line 12), whose body starts on line 14 (constant).*",
        ]
    )
    healed_patch_passes(pytester)


TARIFFS = """\
RATES = {}


def register(kind, rate):
    RATES[kind] = rate


register("standard", 0.25)
register("reduced", 0.05)


def tax(net, kind="standard"):
    return round(net * RATES[kind], 2)
"""
TEST_TARIFFS = """\
from tariffs import tax


def test_standard():
    assert tax(100) == 20


def test_reduced():
    assert tax(100, "reduced") == 5
"""


def test_a_wrong_argument_of_a_statement_run_at_import_is_healed_by_the_builtin_repairer(
    pytester: pytest.Pytester,
) -> None:
    # `register("standard", 0.25)` ran at import and is neither a definition nor an assignment:
    # it is reached through the name it changes, which tax() reads.
    pytester.makepyfile(tariffs=TARIFFS, test_tariffs=TEST_TARIFFS)

    result = pytester.runpytest("--heal")

    result.stdout.fnmatch_lines(
        [
            "HEALED test_tariffs.py::test_standard",
            "  patched tariffs.py::RATES",
            '  -register("standard", 0.25)',
            '  +register("standard", 0.2)',
            "  Plausible fix by the built-in repairer (no model): `0.25` → `0.2` in the statement "
            "on line 8, which changes RATES, read on line 13 (constant).*",
        ]
    )
    healed_patch_passes(pytester)
