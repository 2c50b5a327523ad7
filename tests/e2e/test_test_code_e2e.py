"""A failure whose own line is the test's and whose error names the test's own code (#46 item 5):
said to be in test code, with the way to allow the fix, before any search or model is spent; and a
model reply that changes only test code is refused as that, not as output that did not parse."""

from __future__ import annotations

import pytest
from helpers import CALC, TEST_CALC, TOOLS_MODEL, heal_args

from pytest_caretaker.testing import ScriptedServer, tool_call

SLUG = """\
import re


def slugify(text):
    text = text.strip().lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")
"""
TEST_SLUG = """\
from slug import slugify


def test_words():
    assert slugify("A b") == "a-b"


def test_title():
    x = "Hello World"
    expected = "hello-world"
    assert slugify(x) == expeted
"""
TYPO_OF_A_LOCAL = """\
from slug import slugify


def test_words():
    assert slugify("A b") == "a-b"


def test_title():
    slug = slugify("Hello World")
    assert slug.uper() == "HELLO-WORLD"
"""


@pytest.fixture
def slug(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(slug=SLUG)
    return pytester


def test_an_undefined_name_in_the_test_line_is_said_to_be_test_code(
    slug: pytest.Pytester,
) -> None:
    slug.makepyfile(test_slug=TEST_SLUG)

    result = slug.runpytest("--heal")

    result.stdout.fnmatch_lines(
        [
            "NOT HEALED test_slug.py::test_title: the failure is in test code: line 11 of"
            " test_slug.py uses `expeted`, which is not defined; rerun with --heal-scope=tests"
            " to let caretaker edit tests",
        ]
    )
    assert "tried" not in result.stdout.str()  # no search was spent on slugify


def test_a_model_is_not_asked_about_a_typo_of_a_test_local(
    slug: pytest.Pytester, llm: ScriptedServer
) -> None:
    slug.makepyfile(test_slug=TYPO_OF_A_LOCAL)

    result = slug.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(
        [
            "NOT HEALED test_slug.py::test_title: the failure is in test code: line 10 of"
            " test_slug.py asks `slug` (a str) for `uper`, which it does not have (did you mean"
            " `upper`?); rerun with --heal-scope=tests to let caretaker edit tests",
        ]
    )
    assert llm.requests == []


def test_with_scope_tests_the_model_fixes_the_test(
    slug: pytest.Pytester, llm: ScriptedServer
) -> None:
    slug.makepyfile(test_slug=TEST_SLUG)
    fixed = "def test_title():\n    x = 'Hello World'\n    expected = 'hello-world'\n"
    fixed += "    assert slugify(x) == expected\n"
    llm.script(
        tool_call("A typo.", [{"path": "test_slug.py", "function": "test_title", "code": fixed}])
    )

    result = slug.runpytest(*heal_args(llm, TOOLS_MODEL, "--heal-scope=tests"))

    result.stdout.fnmatch_lines(
        ["HEALED test_slug.py::test_title", "*+    assert slugify(x) == expected"]
    )
    assert len(llm.requests) == 1


def test_a_reply_that_changes_only_test_code_is_refused_as_that(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC)
    weaker = "def test_mean():\n    assert mean([1, 2, 3]) == 1.5\n"
    llm.script(
        tool_call(
            "The test expects the wrong mean.",
            [{"path": "test_calc.py", "function": "test_mean", "code": weaker}],
        )
    )

    result = pytester.runpytest(*heal_args(llm, TOOLS_MODEL, "--heal-attempts=1"))

    result.stdout.fnmatch_lines(
        [
            "NOT HEALED test_calc.py::test_mean: fix refused: the fix edits test code"
            " (test_calc.py), but tests are the specification; fix the code under test instead"
            " (rerun with --heal-scope=tests to let caretaker edit tests)",
        ]
    )
    assert "did not parse" not in result.stdout.str()
