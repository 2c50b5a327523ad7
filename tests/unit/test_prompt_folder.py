"""Prompts: a user's --heal-prompt folder, its templates in front of caretaker's, and its check."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.llm.prompts import (
    SAMPLE,
    TOOL_NAME,
    VARIABLES,
    PromptError,
    check_folder,
    render,
)


def sample(name: str) -> dict[str, Any]:
    """The sample values of a template's variables."""
    return dict(SAMPLE[name])


def write(folder: Path, files: dict[str, str]) -> str:
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(folder)


# -- a user's --heal-prompt folder ---------------------------------------------------------------


def test_a_top_level_system_template_overrides_both_strategies(tmp_path: Path) -> None:
    folder = write(tmp_path, {"system.j2": "MY SYSTEM for {{ scope }} ({{ tools }})"})
    assert render("system", True, folder, scope="code") == "MY SYSTEM for code (True)\n"
    assert render("system", False, folder, scope="any") == "MY SYSTEM for any (False)\n"
    # The other templates are still caretaker's.
    assert render("retry", True, folder, **sample("retry")) == render(
        "retry", True, **sample("retry")
    )


def test_a_strategy_template_overrides_only_that_strategy(tmp_path: Path) -> None:
    folder = write(tmp_path, {"text/system.j2": "MY TEXT SYSTEM {{ scope }}"})
    assert render("system", False, folder, scope="code") == "MY TEXT SYSTEM code\n"
    tools = render("system", True, folder, scope="code")
    assert tools == render("system", True, scope="code")
    assert TOOL_NAME in tools


def test_a_strategy_template_wins_over_a_top_level_one(tmp_path: Path) -> None:
    folder = write(tmp_path, {"system.j2": "SHARED", "tools/system.j2": "TOOLS ONLY"})
    assert render("system", True, folder, scope="code") == "TOOLS ONLY\n"
    assert render("system", False, folder, scope="code") == "SHARED\n"


def test_a_users_rules_replace_the_rules_in_caretakers_system_prompts(tmp_path: Path) -> None:
    folder = write(tmp_path, {"rules.j2": "MY RULES for {{ scope }}"})
    for tools in (True, False):
        text = render("system", tools, folder, scope="tests")
        assert "MY RULES for tests" in text
        assert "Rules that always hold" not in text
        assert (TOOL_NAME in text) is tools  # the rest is still caretaker's
        assert ("# file:" in text) is not tools


def test_a_users_strategy_rules_are_used_for_that_strategy(tmp_path: Path) -> None:
    folder = write(tmp_path, {"tools/rules.j2": "MY TOOL RULES"})
    check_folder(folder)
    assert "MY TOOL RULES" in render("system", True, folder, scope="code")


def test_a_template_failing_at_render_time_is_a_prompt_error(tmp_path: Path) -> None:
    folder = write(tmp_path, {"retry.j2": "Attempt {{ attempt }}: {{ reason.nope.deeper }}"})
    with pytest.raises(PromptError) as raised:
        render("retry", True, folder, **sample("retry"))
    assert f"{folder}/retry.j2" in str(raised.value)
    assert "nope" in str(raised.value)
    assert raised.value.__cause__ is None  # no jinja2 exception chained for the user to read


def test_a_template_including_a_missing_file_is_a_prompt_error(tmp_path: Path) -> None:
    folder = write(tmp_path, {"system.j2": '{% include "missing.j2" %}'})
    with pytest.raises(PromptError, match=r"missing\.j2"):
        render("system", False, folder, scope="code")


def test_a_python_error_while_rendering_is_a_prompt_error(tmp_path: Path) -> None:
    folder = write(tmp_path, {"retry.j2": "{{ attempt + 'x' }}"})
    with pytest.raises(PromptError, match=r"retry\.j2"):
        render("retry", True, folder, **sample("retry"))


# -- check_folder --------------------------------------------------------------------------------


def test_check_folder_accepts_valid_templates(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        {
            "system.j2": "Fix it. {% include 'rules.j2' %}",
            "rules.j2": "Scope {{ scope }}{% if tools %}, call {{ tool_name }}{% endif %}.",
            "user.j2": "{{ test_id }}: {{ error }}\n{% for f in functions %}{{ f.ref }}\n"
            "{{ f.code }}{% endfor %}",
            "text/retry.j2": "Attempt {{ attempt }} failed: {{ reason }}\n{{ detail }}",
            "tools/retry.j2": "Call {{ tool_name }} again ({{ reason }}).",
            "notes.txt": "not a template",
        },
    )
    check_folder(folder)  # no PromptError


@pytest.mark.parametrize(
    ("relative", "name"), [("retry.j2", "retry"), ("tools/retry.j2", "retry"), ("user.j2", "user")]
)
def test_check_folder_names_an_unknown_variable_and_the_known_ones(
    tmp_path: Path, relative: str, name: str
) -> None:
    folder = write(tmp_path, {relative: "Hello {{ nonsense }}"})
    with pytest.raises(PromptError) as raised:
        check_folder(folder)
    message = str(raised.value)
    assert f"{folder}/{relative}" in message
    assert "nonsense" in message
    assert ", ".join(sorted(VARIABLES[name])) in message


def test_check_folder_refuses_a_template_caretaker_does_not_use(tmp_path: Path) -> None:
    folder = write(tmp_path, {"foo.j2": "hello"})
    with pytest.raises(PromptError) as raised:
        check_folder(folder)
    message = str(raised.value)
    assert f"{folder}/foo.j2" in message
    for name in VARIABLES:
        assert f"{name}.j2" in message


def test_check_folder_gives_the_line_of_a_syntax_error(tmp_path: Path) -> None:
    folder = write(tmp_path, {"text/system.j2": "line one\nline two\n{% if scope %}never closed\n"})
    with pytest.raises(PromptError) as raised:
        check_folder(folder)
    message = str(raised.value)
    assert f"{folder}/text/system.j2" in message
    assert re.search(r"line [34]\b", message), message


def test_check_folder_gives_the_exact_line_of_a_bad_expression(tmp_path: Path) -> None:
    folder = write(tmp_path, {"retry.j2": "one\ntwo\n{{ reason ]] }}\nfour\n"})
    with pytest.raises(PromptError, match=r"retry\.j2 line 3:"):
        check_folder(folder)


def test_check_folder_refuses_a_missing_folder(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(PromptError, match="is not a folder"):
        check_folder(str(missing))
    (tmp_path / "a-file.j2").write_text("{{ scope }}")
    with pytest.raises(PromptError, match="is not a folder"):
        check_folder(str(tmp_path / "a-file.j2"))


@pytest.mark.parametrize(
    "files",
    [
        pytest.param({}, id="empty"),
        pytest.param({"README.md": "prompts", "system.txt": "x"}, id="no-j2"),
    ],
)
def test_check_folder_refuses_a_folder_without_templates(
    tmp_path: Path, files: dict[str, str]
) -> None:
    folder = write(tmp_path, files)
    with pytest.raises(PromptError, match="has no templates"):
        check_folder(folder)


def test_check_folder_renders_with_sample_values(tmp_path: Path) -> None:
    # functions is a variable user.j2 gets, but its items have no field "bogus": only rendering
    # with sample values finds that.
    folder = write(tmp_path, {"user.j2": "{{ test_id }} {{ functions[0].bogus }}"})
    with pytest.raises(PromptError) as raised:
        check_folder(folder)
    message = str(raised.value)
    assert f"{folder}/user.j2" in message
    assert "bogus" in message
    assert "sample values" in message


def test_check_folder_reports_a_python_error_of_a_template(tmp_path: Path) -> None:
    folder = write(tmp_path, {"retry.j2": "{{ attempt + 'x' }}"})
    with pytest.raises(PromptError, match=r"retry\.j2"):
        check_folder(folder)


def test_check_folder_refuses_a_template_in_a_folder_caretaker_does_not_read(
    tmp_path: Path,
) -> None:
    # Refused, not ignored: the user meant it to be used (here, a typo of tools/).
    folder = write(tmp_path, {"tool/system.j2": "A typo'd strategy folder: {{ scope }}"})
    with pytest.raises(PromptError) as raised:
        check_folder(folder)
    message = str(raised.value)
    assert f"{folder}/tool/system.j2 is in a folder caretaker does not read" in message
    assert "tools/ or text/" in message


# -- a folder that is not what it seems: each a PromptError (a usage error), never a traceback ---


def bad_templates() -> list[Any]:
    """(make, the words the one-line message must hold) for each kind of bad folder."""

    def write_bytes(data: bytes) -> Any:
        return lambda folder: (folder / "user.j2").write_bytes(data)

    return [
        pytest.param(
            write_bytes(b"{{ test_id | nosuch }}"),
            ["user.j2 line 1: No filter named 'nosuch'", "Jinja2's built-in filters"],
            id="unknown-filter",
        ),
        pytest.param(
            write_bytes(b"{% if test_id is nosuch %}x{% endif %}"),
            ["user.j2 failed: No test named 'nosuch'", "with sample values"],
            id="unknown-test",  # found when rendered, not compiled
        ),
        pytest.param(
            write_bytes(b"\xff\xfe{{ test_id }}"),
            ["user.j2 is not UTF-8 text (byte 0xff at offset 0); save it as UTF-8"],
            id="not-utf-8",
        ),
        pytest.param(
            lambda folder: (folder / "user.j2").mkdir(),
            ["user.j2 is a folder; a template is a text file: rename or remove it"],
            id="folder-named-user.j2",
        ),
        pytest.param(
            lambda folder: (folder / "user.j2").symlink_to("user.j2"),
            ["user.j2 cannot be read: Too many levels of symbolic links"],
            id="link-loop",
        ),
        pytest.param(
            lambda folder: os.mkfifo(folder / "retry.j2"),
            ["retry.j2 is not a regular file"],
            id="fifo",
        ),
        pytest.param(
            write_bytes(b"{{ " + b"(" * 3000 + b"test_id" + b")" * 3000 + b" }}"),
            ["user.j2 is nested too deeply for Jinja2"],
            id="nested",
        ),
    ]


@pytest.mark.parametrize(("make", "words"), bad_templates())
def test_check_folder_refuses_what_cannot_be_a_template_in_one_line(
    tmp_path: Path, make: Any, words: list[str]
) -> None:
    make(tmp_path)

    with pytest.raises(PromptError) as raised:
        check_folder(str(tmp_path), "ini option heal_prompt")

    message = str(raised.value)
    assert message.startswith("ini option heal_prompt: ")
    assert f"{tmp_path}/" in message
    assert "\n" not in message
    for part in words:
        assert part in message


def test_a_link_back_into_the_folder_is_walked_once(tmp_path: Path) -> None:
    # A loop of folders: nothing in it is a template caretaker does not read, and it ends.
    folder = write(tmp_path, {"user.j2": "{{ test_id }}", "tools/system.j2": "{{ scope }}"})
    (tmp_path / "loop").symlink_to(tmp_path)
    (tmp_path / "tools" / "up").symlink_to("..")

    check_folder(folder)  # no PromptError


def test_a_link_loop_that_is_no_template_is_not_read(tmp_path: Path) -> None:
    folder = write(tmp_path, {"user.j2": "{{ test_id }}"})
    (tmp_path / "loop").symlink_to("loop")

    check_folder(folder)  # no PromptError
