"""A fix is checked against the session's tests of every module that imports what it changes, not
only the failing test's module (#21 item 3): a fix that heals module A's test and breaks module
B's is no fix, even when B reaches the changed file through another module."""

from __future__ import annotations

import pytest
from helpers import heal_args

from pytest_caretaker.testing import ScriptedServer, tool_call

PRICES = "def unit_price(total, count):\n    return total / (count + 1)\n"
REPORT = "from shop.prices import unit_price\n\n\ndef line(total, count):\n"
REPORT += "    return f'{unit_price(total, count):.2f}'\n"
TEST_A = "from shop.prices import unit_price\n\n\ndef test_unit_price():\n"
TEST_A += "    assert unit_price(10, 2) == 5\n"
# Module B never imports prices itself: it reaches it through shop.report.
TEST_B = "from shop.report import line\n\n\ndef test_zero():\n    assert line(0, 4) == '0.00'\n"
BREAKS_B = "def unit_price(total, count):\n    return 5.0\n"
GOOD = "def unit_price(total, count):\n    return total / count\n"


def script_breaks_then_good(llm: ScriptedServer) -> None:
    """The model's first fix heals test_a and breaks the other test; its second heals both."""
    edit = {"path": "shop/prices.py", "function": "unit_price"}
    llm.script(
        tool_call("Five.", [{**edit, "code": BREAKS_B}]),
        tool_call("Divide by count.", [{**edit, "code": GOOD}]),
    )


def test_a_fix_that_breaks_another_modules_test_is_rejected_and_repaired_again(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.mkpydir("shop")
    pytester.makepyfile(
        **{"shop/prices": PRICES, "shop/report": REPORT, "test_a": TEST_A, "test_b": TEST_B}
    )
    script_breaks_then_good(llm)

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_a.py::test_unit_price", "*2 attempts*"])
    retry = str(llm.requests[1]["messages"])
    assert "test_b.py::test_zero" in retry
    result.stdout.fnmatch_lines(["caretaker: 1 healed, 0 not healed*"])


CONFTEST = (
    "import pytest\n\nimport shop.prices\n\n\n@pytest.fixture(autouse=True)\n"
    "def add_prices(doctest_namespace):\n    doctest_namespace['prices'] = shop.prices\n"
)
# A documentation page run as a doctest (--doctest-glob): it imports nothing, its `prices` comes
# from the conftest's doctest_namespace fixture.
PAGE = (
    "Prices\n======\n\nNothing bought costs nothing::\n\n    >>> prices.unit_price(0, 4)\n    0.0\n"
)


def test_a_fix_that_breaks_a_doctest_page_fed_by_a_conftest_is_rejected(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.mkpydir("shop")
    pytester.makepyfile(**{"shop/prices": PRICES, "conftest": CONFTEST, "test_a": TEST_A})
    pytester.mkdir("docs").joinpath("prices.rst").write_text(PAGE)
    pytester.makeini("[pytest]\naddopts = --doctest-glob=*.rst\n")
    script_breaks_then_good(llm)

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_a.py::test_unit_price", "*2 attempts*"])
    assert "docs/prices.rst::prices.rst" in str(llm.requests[1]["messages"])
    result.stdout.fnmatch_lines(["caretaker: 1 healed, 0 not healed*"])
