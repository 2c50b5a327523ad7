"""Prompts: caretaker's templates of each strategy, the text format the parser reads, and the
sample values a user's folder is checked with (its check: test_prompt_folder.py)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import pytest

from pytest_caretaker.llm.context import Context, FunctionContext, fence_for
from pytest_caretaker.llm.parse import parse_reply
from pytest_caretaker.llm.prompts import (
    SAMPLE,
    STRATEGIES,
    TOOL,
    TOOL_NAME,
    VARIABLES,
    PromptError,
    render,
)
from pytest_caretaker.project.files import SourceFile
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Proposal

#: The sentence of the rules that only one scope gets.
SCOPE_RULE = {
    "code": "Tests are the specification: change only the code under test",
    "tests": "Only test code may change",
    "any": "Code under test and tests may change",
}


def sample(name: str) -> dict[str, Any]:
    """The sample values of a template's variables."""
    return dict(SAMPLE[name])


# -- caretaker's own templates -------------------------------------------------------------------


@pytest.mark.parametrize("scope", ["code", "tests", "any"])
def test_the_tools_system_prompt_asks_for_the_tool(scope: str) -> None:
    text = render("system", True, scope=scope)
    assert TOOL_NAME == "propose_fix" == TOOL["function"]["name"]
    assert f"`{TOOL_NAME}`" in text
    for field in ("explanation", "edits", "path", "function", "code"):
        assert f"`{field}`" in text  # the tool's fields, as its schema names them
    assert "```" not in text
    assert "# file:" not in text


@pytest.mark.parametrize("scope", ["code", "tests", "any"])
def test_the_text_system_prompt_describes_the_block_format(scope: str) -> None:
    text = render("system", False, scope=scope)
    assert "```python\n# file: path/to/module.py\ndef " in text
    assert TOOL_NAME not in text


@pytest.mark.parametrize("tools", [True, False], ids=["tools", "text"])
@pytest.mark.parametrize("scope", ["code", "tests", "any"])
def test_both_system_prompts_hold_the_shared_rules(tools: bool, scope: str) -> None:
    rules = render("rules", tools, scope=scope)
    assert "Rules that always hold" in rules
    assert rules in render("system", tools, scope=scope)
    assert render("rules", not tools, scope=scope) == rules  # one file for both strategies


@pytest.mark.parametrize("tools", [True, False], ids=["tools", "text"])
def test_the_scope_sentence_follows_the_scope(tools: bool) -> None:
    texts = {scope: render("system", tools, scope=scope) for scope in SCOPE_RULE}
    assert len(set(texts.values())) == 3
    for scope, text in texts.items():
        for other, sentence in SCOPE_RULE.items():
            assert (sentence in text) is (scope == other), (scope, other)
    assert "Never edit a test" in texts["code"]
    for scope in ("tests", "any"):
        assert "Never weaken a test" in texts[scope]


def test_a_missing_scope_is_an_error_not_an_empty_sentence() -> None:
    with pytest.raises(PromptError, match="scope"):
        render("system", True)


# -- the text format is the one the parser reads -------------------------------------------------

CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
STATS = "def mean(xs):\n    return 0\n"
FIXED = "def mean(xs):\n    return sum(xs) / len(xs)\n"


def _files(sources: dict[str, str]) -> Callable[[str], SourceFile | None]:
    def files(path: str) -> SourceFile | None:
        text = sources.get(path)
        return SourceFile(path, text.encode("utf-8")) if text is not None else None

    return files


def test_a_reply_in_the_documented_text_format_parses_into_the_edit() -> None:
    prompt = render("system", False, scope="code")
    example = re.search(r"```python\n(.*?)```", prompt, re.S)
    assert example is not None, prompt
    header = example.group(1).splitlines()[0]
    assert header.endswith("path/to/module.py")
    file_line = header.replace("path/to/module.py", "calc.py")
    paragraph = "mean() divides by one more than the count; divide by the count."
    reply = f"{paragraph}\n\n```python\n{file_line}\n{FIXED}```\n"
    # Two candidates define mean(): the one ranked first is in stats.py, so only the file line
    # can make the edit land in calc.py.
    candidates = [
        Suspect(path="stats.py", qualname="mean", is_test=False, score=1.0),
        Suspect(path="calc.py", qualname="mean", is_test=False, score=0.5),
    ]
    parsed = parse_reply(
        reply, (), candidates, lambda c: True, _files({"calc.py": CALC, "stats.py": STATS})
    )
    assert isinstance(parsed, Proposal), parsed
    assert parsed.explanation == paragraph
    assert [(e.kind, e.path, e.qualname) for e in parsed.edits] == [("replace", "calc.py", "mean")]
    assert parsed.edits[0].source == FIXED


# -- retry and user ------------------------------------------------------------------------------


@pytest.mark.parametrize("tools", [True, False], ids=["tools", "text"])
def test_the_retry_prompt_says_why_with_the_detail_and_the_attempt(tools: bool) -> None:
    text = render(
        "retry", tools, reason="the test still fails", detail="E   assert 2.5 == 2.0", attempt=7
    )
    assert "the test still fails" in text
    assert "```\nE   assert 2.5 == 2.0\n```" in text
    assert "attempt 7" in text
    assert (TOOL_NAME in text) is tools
    assert ("# file:" in text) is not tools


@pytest.mark.parametrize("tools", [True, False], ids=["tools", "text"])
def test_the_retry_prompt_without_detail_has_no_empty_block(tools: bool) -> None:
    text = render("retry", tools, reason="the reply holds no code", detail="", attempt=2)
    assert "the reply holds no code" in text
    assert "attempt 2" in text
    assert "```\n```" not in text
    assert "```\n\n```" not in text


@pytest.mark.parametrize("tools", [True, False], ids=["tools", "text"])
def test_the_user_prompt_shows_the_failure(tools: bool) -> None:
    values = sample("user")
    text = render("user", tools, **values)
    function = values["functions"][0]
    assert f"The test `{values['test_id']}` fails." in text
    assert f"Error: {values['error']}" in text
    assert str(values["report"]) in text
    assert function.code in text
    assert f"## {function.ref} (editable)" in text
    assert "Failed at: line 2 `return sum(values) / (len(values) - 1)`" in text
    assert "- values = [1, 2, 3]" in text
    assert "Imports of pkg/calc.py:\n```python\nimport math\n```" in text
    assert "Captured output" not in text  # none was captured


def test_the_user_prompt_renders_real_context() -> None:
    test = FunctionContext(
        ref="tests/test_calc.py::test_mean",
        path="tests/test_calc.py",
        qualname="test_mean",
        editable=False,
        is_test=True,
        code="def test_mean():\n    assert mean([1, 2, 3]) == 2\n",
        failed_lines=(),
    )
    context = Context(
        test_id="tests/test_calc.py::test_mean",
        failing="The test `tests/test_calc.py::test_mean` fails.",
        case="the test",
        error="ZeroDivisionError: division by zero",
        report="E   ZeroDivisionError",
        output="computing the mean\n",
        locals=(),
        functions=(test,),
        imports=(("tests/test_calc.py", ()),),
    )
    values: dict[str, Any] = context.as_vars()
    text = render("user", True, **values)
    assert text.startswith("The test `tests/test_calc.py::test_mean` fails.\n")
    assert "pytest's report:" in text and "Functions the test ran" in text
    assert "## tests/test_calc.py::test_mean (read only, test)" in text
    assert "Captured output:\n```\ncomputing the mean\n" in text
    assert "Failed at" not in text
    assert "Locals" not in text
    assert "Imports of" not in text  # a file without imports is left out


# -- the samples a folder is checked with --------------------------------------------------------


def test_the_sample_function_has_the_fields_of_the_real_one() -> None:
    function = sample("user")["functions"][0]
    real = [(f.name, f.type) for f in dataclasses.fields(FunctionContext)]
    assert [(f.name, f.type) for f in dataclasses.fields(function)] == real


def test_the_samples_are_the_variables_caretaker_renders_with() -> None:
    provided = {"tools", "tool_name", "show_name", "show_rounds"}  # render adds these itself
    for name in ("system", "user", "retry"):
        assert set(SAMPLE[name]) == VARIABLES[name] - provided, name
    assert VARIABLES["rules"] == VARIABLES["system"]  # rules.j2 is included by system.j2
    context_fields = {f.name for f in dataclasses.fields(Context)}
    assert set(SAMPLE["user"]) == context_fields
    assert set(SAMPLE["user"]) == set(
        Context(
            test_id="t",
            failing="f",
            case="the test",
            error="e",
            report="",
            output="",
            locals=(),
            functions=(),
            imports=(),
        ).as_vars()
    )
    assert set(STRATEGIES) == {"tools", "text"}


@pytest.mark.parametrize("tools", [True, False], ids=["tools", "text"])
def test_caretakers_own_templates_render_with_the_samples(tools: bool) -> None:
    for name in ("system", "user", "retry"):
        text = render(name, tools, **sample(name))
        assert text.strip()
        assert text.endswith("\n") and not text.endswith("\n\n")


@pytest.mark.parametrize(
    ("texts", "fence"),
    [
        pytest.param(("def f():\n    return 1\n",), "```", id="no-backticks"),
        pytest.param(('"""Use it:\n\n```python\n>>> f()\n```\n"""',), "````", id="fenced-example"),
        pytest.param(("x = '`'", "`````"), "``````", id="longest-run-anywhere"),
    ],
)
def test_a_fence_is_longer_than_any_backtick_run_of_what_it_fences(
    texts: tuple[str, ...], fence: str
) -> None:
    assert fence_for(*texts) == fence


def test_code_whose_docstring_holds_a_fence_is_shown_in_a_longer_one() -> None:
    # A docstring's ```python example must not end the block the model is shown (#34).
    code = (
        'def f():\n    """Use it:\n\n    ```python\n    >>> f()\n    ```\n    """\n    return 1\n'
    )
    function = dataclasses.replace(sample("user")["functions"][0], code=code)
    values = {**sample("user"), "functions": (function,), "fence": fence_for(code)}

    text = render("user", False, **values)

    assert f"````python\n{code}````" in text
