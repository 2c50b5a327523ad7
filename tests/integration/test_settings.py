"""Settings through pytest: bad values as usage errors, the mode line, CI and --heal-review."""

from __future__ import annotations

import pytest

from pytest_caretaker.plugin.hooks import refuse_review
from pytest_caretaker.settings import Settings, detect_ci

# -- through pytest ------------------------------------------------------------------------------


def test_bad_cli_attempts_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest("--heal", "--heal-attempts", "zero")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*caretaker: --heal-attempts: *'zero'*"])


def test_bad_ini_scope_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nheal_scope = everything\n")
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*caretaker: ini option heal_scope: *'everything'*"])


def test_bad_env_heal_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARETAKER_HEAL", "maybe")
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*caretaker: CARETAKER_HEAL: *'maybe'*"])


def test_bad_budget_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--heal", "--heal-budget", "free")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*caretaker: --heal-budget: expected an amount of US dollars, e.g. 0.50, got 'free'"]
    )


# -- the mode line, CI and --heal-review -------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "mode"),
    [
        (Settings(heal=True), "heal (in memory)"),
        (Settings(heal=True, write=True), "heal (write and commit)"),
        (Settings(heal=True, write=True, branch="heal/x"), "heal (write and commit on heal/x)"),
        (Settings(heal=True, write=True, commit=False), "heal (write, no commit)"),
        (
            Settings(heal=True, write=True, commit=False, branch="heal/x"),
            "heal (write, no commit on heal/x)",
        ),
        (Settings(heal=True, write=True, review=True), "heal (review, write and commit)"),
    ],
)
def test_settings_mode(settings: Settings, mode: str) -> None:
    assert settings.mode == mode


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"CI": "true"}, "CI"),
        ({"CI": "1"}, "CI"),
        ({"GITHUB_ACTIONS": "true"}, "GITHUB_ACTIONS"),
        ({"CI": "false", "GITLAB_CI": "true"}, "GITLAB_CI"),
        ({"JENKINS_URL": "https://jenkins.example/"}, "JENKINS_URL"),
        ({"CI": "false"}, None),
        ({"CI": "0"}, None),
        ({"CI": ""}, None),
        ({"CI": " No "}, None),
        ({"HOME": "/home/me"}, None),
    ],
)
def test_detect_ci(env: dict[str, str], expected: str | None) -> None:
    assert detect_ci(env) == expected


def test_refuse_review_in_ci() -> None:
    with pytest.raises(pytest.UsageError, match=r"refused in CI \(GITHUB_ACTIONS is set\)"):
        refuse_review({"GITHUB_ACTIONS": "true"}, stdin_is_tty=True)


def test_refuse_review_without_a_terminal() -> None:
    with pytest.raises(pytest.UsageError, match="needs a terminal"):
        refuse_review({}, stdin_is_tty=False)


def test_refuse_review_allows_a_terminal_outside_ci() -> None:
    assert refuse_review({"CI": "false"}, stdin_is_tty=True) is None
