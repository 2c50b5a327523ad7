"""Bad configuration is a usage error of one line, never an INTERNALERROR (#15): each case is a
real `pytest --heal` run of a small failing project, which must stop before any test runs with
exit status 4 and one line that names where the value came from and what to do."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

FAILING = "def test_one():\n    assert 1 + 1 == 3\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_one=FAILING)
    return pytester


def usage_error(result: pytest.RunResult) -> str:
    """The one line a usage error prints, after checking it is the only thing said."""
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output
    assert "Traceback" not in output
    assert "test_one" not in result.stdout.str()  # stopped before the run
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1, lines
    (line,) = lines
    assert line.startswith("ERROR: caretaker: ")
    return line.removeprefix("ERROR: caretaker: ")


# -- --heal-api-base, heal_api_base, CARETAKER_API_BASE -----------------------------------------

BAD_URL = "http://[::1"
SAYS = "'http://[::1' is not a URL (Invalid IPv6 URL); write it like http://[::1]:8000/v1"


def test_an_api_base_urlsplit_refuses_on_the_command_line(project: pytest.Pytester) -> None:
    result = project.runpytest("--heal", "--heal-api-base", BAD_URL)

    assert usage_error(result) == f"--heal-api-base: {SAYS}"


def test_an_api_base_urlsplit_refuses_in_the_ini_file(project: pytest.Pytester) -> None:
    project.makeini(f"[pytest]\nheal_api_base = {BAD_URL}\n")

    result = project.runpytest("--heal")

    assert usage_error(result) == f"ini option heal_api_base: {SAYS}"


def test_an_api_base_urlsplit_refuses_in_the_environment(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARETAKER_API_BASE", BAD_URL)

    result = project.runpytest("--heal")

    assert usage_error(result) == f"CARETAKER_API_BASE: {SAYS}"


def test_a_port_that_is_no_port_is_refused_even_without_heal(project: pytest.Pytester) -> None:
    # The value is resolved for every run: without --heal it was an INTERNALERROR too.
    result = project.runpytest("--heal-api-base", "http://localhost:99999/v1")

    assert usage_error(result).startswith("--heal-api-base: 'http://localhost:99999/v1' is not a")


# -- --heal-prompt ------------------------------------------------------------------------------


def _unknown_filter(folder: Path) -> None:
    (folder / "user.j2").write_text("{{ test_id | nosuch }}\n")


def _not_utf8(folder: Path) -> None:
    (folder / "user.j2").write_bytes(b"\xff\xfe{{ test_id }}\n")


def _folder_named_user_j2(folder: Path) -> None:
    (folder / "user.j2").mkdir()


def _link_loop(folder: Path) -> None:
    (folder / "user.j2").symlink_to("user.j2")


PROMPT_FOLDERS: list[tuple[Callable[[Path], None], str]] = [
    (_unknown_filter, "user.j2 line 1: No filter named 'nosuch'; caretaker's templates have "),
    (_not_utf8, "user.j2 is not UTF-8 text (byte 0xff at offset 0); save it as UTF-8"),
    (_folder_named_user_j2, "user.j2 is a folder; a template is a text file: rename or remove it"),
    (_link_loop, "user.j2 cannot be read: Too many levels of symbolic links"),
]


@pytest.mark.parametrize(
    ("make", "says"), PROMPT_FOLDERS, ids=[make.__name__[1:] for make, _ in PROMPT_FOLDERS]
)
def test_a_prompt_folder_caretaker_cannot_use_is_a_usage_error(
    project: pytest.Pytester, make: Callable[[Path], None], says: str
) -> None:
    folder = project.path / "prompts"
    folder.mkdir()
    make(folder)

    result = project.runpytest("--heal", "--heal-prompt", "prompts")

    line = usage_error(result)
    assert line.startswith(f"--heal-prompt: {folder.resolve()}/")
    assert says in line


def test_a_bad_prompt_folder_from_the_ini_file_is_named_so(project: pytest.Pytester) -> None:
    folder = project.path / "prompts"
    folder.mkdir()
    _unknown_filter(folder)
    project.makeini("[pytest]\nheal_prompt = prompts\n")

    result = project.runpytest("--heal")

    assert usage_error(result).startswith("ini option heal_prompt: ")


def test_a_prompt_folder_that_is_a_link_to_itself_is_a_usage_error(
    project: pytest.Pytester,
) -> None:
    os.symlink("prompts", project.path / "prompts")

    result = project.runpytest("--heal", "--heal-prompt", "prompts")

    assert "is not a folder of templates" in usage_error(result)
