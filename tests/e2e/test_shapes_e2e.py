"""Every code shape a bug lives in is editable: `pytest --heal` on small projects whose bug is a
module-level constant, a class attribute or a lambda bound to a name, healed by the scripted model
and (a constant one literal away) by the built-in repairer; the patch then makes pytest pass."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from typing import Any

import pytest
from helpers import block, heal_args

from pytest_caretaker.testing import Scripted, ScriptedServer, tool_call

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


#: The model's fix for each failing test of the model runs below.
MODEL_FIXES = {
    "test_shop.py::test_price": ("The VAT rate is 20 %.", "shop.py", "VAT", "VAT = 0.2\n"),
    "test_cart.py::test_due": (
        "10 % off.",
        "cart.py",
        "Cart",
        "class Cart:\n    DISCOUNT: float = 0.1\n",
    ),
    "test_geom.py::test_area": (
        "Width times height.",
        "geom.py",
        "area",
        "area = lambda w, h: w * h\n",
    ),
}
#: The model runs: shop alone (its tests read the session's count and the whole patch), and cart
#: and geom together (each a problem of its own; their modules' names differ).
MODEL_PROJECTS = {
    "shop": {"shop": SHOP, "test_shop": TEST_SHOP},
    "cart+geom": {"cart": CART, "test_cart": TEST_CART, "geom": GEOM, "test_geom": TEST_GEOM},
}


@dataclass
class ModelRun:
    """A model run's output, the first prompt about each failing test, its patch, and the plain
    run after the patch was applied with git."""

    lines: list[str]
    prompts: dict[str, str]
    patch: str
    plain: pytest.RunResult


@pytest.fixture(scope="module")
def _model_runs() -> dict[str, ModelRun]:
    return {}


def model_run(
    pytester: pytest.Pytester, llm: ScriptedServer, runs: dict[str, ModelRun], project: str
) -> ModelRun:
    """The project's heal run with the scripted model, then healed_patch_passes' checks: each
    test of this file had a run of its own (~2.5 s of CPU apiece, most of it the run's start,
    its verification server and the patch check); the tests of one project now share one. Made
    by the first test that needs it, in its pytester (its patch is judged at that test's end)."""
    if project in runs:
        return runs[project]
    pytester.makepyfile(**MODEL_PROJECTS[project])

    def respond(body: dict[str, Any]) -> Scripted:
        found = re.match(r"The test `([^`]+)` fails", str(body["messages"][1]["content"]))
        assert found is not None
        explanation, path, function, code = MODEL_FIXES[found.group(1)]
        return tool_call(explanation, [{"path": path, "function": function, "code": code}])

    llm.responder = respond
    result = pytester.runpytest(*heal_args(llm))
    prompts: dict[str, str] = {}
    for request in llm.requests:
        prompt = str(request["messages"][1]["content"])
        found = re.match(r"The test `([^`]+)` fails", prompt)
        assert found is not None
        prompts.setdefault(found.group(1), prompt)
    patch = (pytester.path / ".caretaker" / "heal.patch").read_text()
    for args in (["apply", "--check"], ["apply"]):
        subprocess.run(["git", *args, ".caretaker/heal.patch"], cwd=pytester.path, check=True)
    # In process: a subprocess cost ~0.6 s of CPU more for its interpreter and pytest's start.
    # The run imports the patched modules afresh (pytester restores sys.modules after each run).
    plain = pytester.runpytest("-p", "no:cacheprovider")
    runs[project] = ModelRun(result.stdout.lines, prompts, patch, plain)
    return runs[project]


def test_wrong_module_constant_is_healed_by_the_model(
    pytester: pytest.Pytester, llm: ScriptedServer, _model_runs: dict[str, ModelRun]
) -> None:
    run = model_run(pytester, llm, _model_runs, "shop")

    pytest.LineMatcher(run.lines).fnmatch_lines(
        [
            "HEALED test_shop.py::test_price",
            "  patched shop.py::VAT",
            "  -VAT = 0.25  # the standard rate",
            "  +VAT = 0.2  # the standard rate",
            "caretaker: 1 healed, 0 not healed *",
        ]
    )
    # The model was shown the constant the suspect reads, as a target of its own.
    assert (
        "## shop.py::VAT (editable)\n```python\nVAT = 0.25  # the standard rate\n```"
        in (run.prompts["test_shop.py::test_price"])
    )
    # heal.patch applied with git, and a plain pytest run then passed every test.
    assert run.plain.ret == 0, run.plain.stdout.str()


def test_wrong_class_attribute_is_healed_by_the_model(
    pytester: pytest.Pytester, llm: ScriptedServer, _model_runs: dict[str, ModelRun]
) -> None:
    run = model_run(pytester, llm, _model_runs, "cart+geom")

    pytest.LineMatcher(block(run.lines, "HEALED test_cart.py::test_due")).fnmatch_lines(
        [
            "HEALED test_cart.py::test_due",
            "  patched cart.py::Cart.DISCOUNT",
            "  -    DISCOUNT: float = 0.5",
            "  +    DISCOUNT: float = 0.1",
        ]
    )
    # The class attribute is shown, editable, in its class's block (heading, data, methods).
    shown = "## cart.py::Cart (editable)\n```python\nclass Cart:\n    DISCOUNT: float = 0.5\n"
    assert shown in run.prompts["test_cart.py::test_due"]
    pytest.LineMatcher(run.plain.stdout.lines).fnmatch_lines(["test_cart.py ..*"])
    assert run.plain.ret == 0, run.plain.stdout.str()


def test_wrong_lambda_is_healed_by_the_model_and_is_no_test_code(
    pytester: pytest.Pytester, llm: ScriptedServer, _model_runs: dict[str, ModelRun]
) -> None:
    run = model_run(pytester, llm, _model_runs, "cart+geom")

    pytest.LineMatcher(block(run.lines, "HEALED test_geom.py::test_area")).fnmatch_lines(
        [
            "HEALED test_geom.py::test_area",
            "  patched geom.py::area",
            "  -area = lambda w, h: w * w",
            "  +area = lambda w, h: w * h",
        ]
    )
    assert "## geom.py::area (editable)" in run.prompts["test_geom.py::test_area"]
    pytest.LineMatcher(run.plain.stdout.lines).fnmatch_lines(["test_geom.py ..*"])
    assert run.plain.ret == 0, run.plain.stdout.str()


def test_the_healed_constant_is_what_the_transcript_records(
    pytester: pytest.Pytester, llm: ScriptedServer, _model_runs: dict[str, ModelRun]
) -> None:
    patch = model_run(pytester, llm, _model_runs, "shop").patch

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


# -- the built-in repairer: one heal run for the four projects ----------------------------------


@dataclass
class BuiltinRun:
    """The built-in repairer's heal run of shop, geom, till and tariffs together, and the plain
    run after its patch was applied (-rA: each test's outcome)."""

    lines: list[str]
    plain: list[str]
    geom: str  # geom.py once patched


@pytest.fixture(scope="module")
def _builtin_run() -> list[BuiltinRun]:
    return []


@pytest.fixture
def builtin_run(pytester: pytest.Pytester, _builtin_run: list[BuiltinRun]) -> BuiltinRun:
    """Each project had a `pytest --heal` of its own, ~2.5 s of CPU apiece, most of it the run's
    start, its verification servers and the patch check; their modules' names differ, so one run
    heals the four bugs (each a problem of its own). Made by the first test that needs it, in its
    pytester (its patch is judged at that test's end too); each test asserts on its own bug's
    HEALED block and on its own tests' outcomes after the patch."""
    if not _builtin_run:
        pytester.makepyfile(
            shop=SHOP,
            test_shop=TEST_SHOP,
            geom=GEOM,
            test_geom=TEST_GEOM,
            till=ROUNDED,
            test_till=TEST_ROUNDED,
            tariffs=TARIFFS,
            test_tariffs=TEST_TARIFFS,
        )
        result = pytester.runpytest("--heal")
        for args in (["apply", "--check"], ["apply"]):
            subprocess.run(["git", *args, ".caretaker/heal.patch"], cwd=pytester.path, check=True)
        plain = pytester.runpytest("-p", "no:cacheprovider", "-rA")
        geom = (pytester.path / "geom.py").read_text()
        _builtin_run.append(BuiltinRun(result.stdout.lines, plain.stdout.lines, geom))
    return _builtin_run[0]


def passes_after_the_patch(run: BuiltinRun, test_file: str) -> None:
    """The patch applied with git, every test of test_file passes in a plain pytest run."""
    outcomes = [
        line.split()[0] for line in run.plain if re.match(rf"\w+ {re.escape(test_file)}::", line)
    ]
    assert outcomes == ["PASSED", "PASSED"], "\n".join(run.plain)


def test_wrong_module_constant_is_healed_by_the_builtin_repairer(builtin_run: BuiltinRun) -> None:
    heading = "HEALED test_shop.py::test_price"
    pytest.LineMatcher(block(builtin_run.lines, heading)).fnmatch_lines(
        [
            heading,
            "  patched shop.py::VAT",
            "  -VAT = 0.25  # the standard rate",
            "  +VAT = 0.2  # the standard rate",
            "  Plausible fix by the built-in repairer (no model): `0.25` → `0.2` in VAT (line 2), "
            "read on line 6 (constant).*",
        ]
    )
    passes_after_the_patch(builtin_run, "test_shop.py")


def test_wrong_lambda_is_healed_by_the_builtin_repairer(builtin_run: BuiltinRun) -> None:
    heading = "HEALED test_geom.py::test_area"
    pytest.LineMatcher(block(builtin_run.lines, heading)).fnmatch_lines(
        [heading, "  patched geom.py::area"]
    )
    passes_after_the_patch(builtin_run, "test_geom.py")
    # w * h or h * w: the first variable swap that passes
    assert builtin_run.geom.strip() in (
        "area = lambda w, h: w * h",
        "area = lambda w, h: h * w",
    )


def test_a_wrong_decorator_argument_in_a_class_body_is_healed_by_the_builtin_repairer(
    builtin_run: BuiltinRun,
) -> None:
    # `digits=1` ran when the class was defined, before any test, and the method's own code is
    # right: the fix is in the decorator's arguments, which the trials cannot swap in place.
    heading = "HEALED test_till.py::test_total"
    pytest.LineMatcher(block(builtin_run.lines, heading)).fnmatch_lines(
        [
            heading,
            "  patched till.py::Till.total",
            "  -    @rounded(digits=1)",
            "  +    @rounded(digits=2)",
            "  Plausible fix by the built-in repairer (no model): `1` → `2` in the decorator of "
            "Till.total (line 12), whose body starts on line 14 (constant).*",
        ]
    )
    passes_after_the_patch(builtin_run, "test_till.py")


def test_a_wrong_argument_of_a_statement_run_at_import_is_healed_by_the_builtin_repairer(
    builtin_run: BuiltinRun,
) -> None:
    # `register("standard", 0.25)` ran at import and is neither a definition nor an assignment:
    # it is reached through the name it changes, which tax() reads.
    heading = "HEALED test_tariffs.py::test_standard"
    pytest.LineMatcher(block(builtin_run.lines, heading)).fnmatch_lines(
        [
            heading,
            "  patched tariffs.py::RATES",
            '  -register("standard", 0.25)',
            '  +register("standard", 0.2)',
            "  Plausible fix by the built-in repairer (no model): `0.25` → `0.2` in the statement "
            "on line 8, which changes RATES, read on line 13 (constant).*",
        ]
    )
    passes_after_the_patch(builtin_run, "test_tariffs.py")
