"""Resolution: the raw values of the three sources into Settings (command line > environment >
ini), with where each value came from for messages."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from pytest_caretaker.children import worker_token
from pytest_caretaker.settings import (
    DEFAULT_ATTEMPTS,
    DEFAULT_TIMEOUT,
    RawValues,
    SettingError,
    Settings,
    resolve,
)


def raw_values(
    cli: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
    ini: Mapping[str, object] | None = None,
) -> RawValues:
    return RawValues(cli=cli or {}, env=env or {}, ini=ini or {})


def test_resolve_defaults_when_nothing_is_given() -> None:
    settings = resolve(raw_values())
    assert settings == Settings()
    assert settings.heal is False
    assert settings.models == ("builtin",)  # no model configured: the built-in repairer
    assert settings.api_base is None
    assert settings.scope == "code"
    assert settings.attempts == 3 == DEFAULT_ATTEMPTS
    assert settings.timeout == 60.0 == DEFAULT_TIMEOUT
    assert dict(settings.sources) == {}


def test_resolve_defaults_with_pytest_empty_values() -> None:
    # What pytest hands over when no option, no env var and no ini key is set.
    cli: dict[str, object] = {
        "heal": None,
        "models": [],
        "api_base": None,
        "scope": None,
        "attempts": None,
        "timeout": None,
    }
    ini: dict[str, object] = {
        "heal": None,
        "models": [],
        "api_base": "",
        "scope": "",
        "attempts": "",
        "timeout": "",
    }
    settings = resolve(raw_values(cli=cli, env={"CARETAKER_HEAL": "  "}, ini=ini))
    assert settings == Settings()
    assert dict(settings.sources) == {}


# (setting, CLI value, env value, ini value, resolved from each of them)
ENV_BACKED = [
    ("heal", True, "0", True, (True, False, True)),
    (
        "models",
        ["cli-model"],
        "env-a,env-b",
        ["ini-model"],
        (
            ("cli-model",),
            ("env-a", "env-b"),
            ("ini-model",),
        ),
    ),
    (
        "api_base",
        "http://cli/",
        "http://env/",
        "http://ini/",
        (
            "http://cli",
            "http://env",
            "http://ini",
        ),
    ),
]
ENV_NAMES = {
    "heal": "CARETAKER_HEAL",
    "models": "CARETAKER_MODEL",
    "api_base": "CARETAKER_API_BASE",
}
FLAGS = {"heal": "--heal", "models": "--heal-model", "api_base": "--heal-api-base"}
INI_NAMES = {"heal": "heal", "models": "heal_model", "api_base": "heal_api_base"}


@pytest.mark.parametrize(("name", "cli", "env", "ini", "expected"), ENV_BACKED)
def test_resolve_cli_beats_env_beats_ini(
    name: str, cli: object, env: str, ini: object, expected: tuple[object, object, object]
) -> None:
    from_cli, from_env, from_ini = expected
    env_name = ENV_NAMES[name]

    everything = resolve(raw_values(cli={name: cli}, env={env_name: env}, ini={name: ini}))
    assert getattr(everything, name) == from_cli
    assert everything.sources[name] == FLAGS[name]

    no_cli = resolve(raw_values(env={env_name: env}, ini={name: ini}))
    assert getattr(no_cli, name) == from_env
    assert no_cli.sources[name] == env_name

    ini_only = resolve(raw_values(ini={name: ini}))
    assert getattr(ini_only, name) == from_ini
    assert ini_only.sources[name] == f"ini option {INI_NAMES[name]}"


def test_resolve_env_false_beats_ini_true() -> None:
    settings = resolve(raw_values(env={"CARETAKER_HEAL": "no"}, ini={"heal": True}))
    assert settings.heal is False
    assert settings.sources["heal"] == "CARETAKER_HEAL"


def test_resolve_ini_heal_false_stays_off() -> None:
    settings = resolve(raw_values(ini={"heal": False}))
    assert settings.heal is False
    assert settings.sources["heal"] == "ini option heal"


@pytest.mark.parametrize(
    ("name", "cli", "ini", "from_cli", "from_ini"),
    [
        ("scope", "any", "tests", "any", "tests"),
        ("attempts", "5", "2", 5, 2),
        ("timeout", "12.5", "30", 12.5, 30.0),
    ],
)
def test_resolve_cli_beats_ini_for_settings_without_env(
    name: str, cli: str, ini: str, from_cli: object, from_ini: object
) -> None:
    both = resolve(raw_values(cli={name: cli}, ini={name: ini}))
    assert getattr(both, name) == from_cli
    assert both.sources[name] == f"--heal-{name}"

    ini_only = resolve(raw_values(ini={name: ini}))
    assert getattr(ini_only, name) == from_ini
    assert ini_only.sources[name] == f"ini option heal_{name}"


def test_resolve_ignores_env_for_settings_without_env_var() -> None:
    env = {"CARETAKER_SCOPE": "any", "CARETAKER_ATTEMPTS": "9", "CARETAKER_TIMEOUT": "5"}
    settings = resolve(raw_values(env=env))
    assert (settings.scope, settings.attempts, settings.timeout) == ("code", 3, 60.0)


def test_resolve_worker_env_forces_heal_off() -> None:
    settings = resolve(
        raw_values(
            cli={"heal": True, "models": ["m"], "attempts": "5"},
            env={"CARETAKER_WORKER": worker_token(), "CARETAKER_HEAL": "1"},
            ini={"heal": True},
        )
    )
    assert settings.heal is False
    assert settings == Settings()


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_resolve_a_worker_flag_set_by_hand_is_not_caretakers_mark(value: str) -> None:
    settings = resolve(raw_values(cli={"heal": True}, env={"CARETAKER_WORKER": value}))
    assert settings.heal is True


def test_resolve_bad_ini_value_names_the_ini_option() -> None:
    with pytest.raises(SettingError) as excinfo:
        resolve(raw_values(ini={"attempts": "lots"}))
    message = str(excinfo.value)
    assert message.startswith("ini option heal_attempts: ")
    assert "'lots'" in message


def test_resolve_bad_env_value_names_the_variable() -> None:
    with pytest.raises(SettingError, match=r"^CARETAKER_API_BASE: .*'localhost'"):
        resolve(raw_values(env={"CARETAKER_API_BASE": "localhost"}))


def test_resolve_good_cli_value_hides_a_bad_env_value() -> None:
    settings = resolve(raw_values(cli={"heal": True}, env={"CARETAKER_HEAL": "maybe"}))
    assert settings.heal is True


def test_resolve_review_implies_write_and_heal() -> None:
    settings = resolve(raw_values(cli={"review": True}))
    assert (settings.review, settings.write, settings.heal) == (True, True, True)
    assert settings.sources["review"] == "--heal-review"


def test_resolve_write_implies_heal() -> None:
    settings = resolve(raw_values(cli={"write": True}))
    assert (settings.review, settings.write, settings.heal) == (False, True, True)
    assert settings.sources["write"] == "--heal-write"


def test_resolve_write_from_the_environment_implies_heal() -> None:
    settings = resolve(raw_values(env={"CARETAKER_WRITE": "1"}))
    assert (settings.write, settings.heal) == (True, True)
    assert settings.sources["write"] == "CARETAKER_WRITE"


def test_resolve_heal_alone_writes_nothing() -> None:
    settings = resolve(raw_values(cli={"heal": True}))
    assert (settings.heal, settings.write, settings.review) == (True, False, False)


def test_resolve_commit_is_on_unless_turned_off() -> None:
    assert resolve(raw_values(cli={"write": True})).commit is True

    from_ini = resolve(raw_values(cli={"write": True}, ini={"commit": False}))
    assert from_ini.commit is False
    assert from_ini.sources["commit"] == "ini option heal_commit"

    from_cli = resolve(raw_values(cli={"write": True, "commit": False}, ini={"commit": True}))
    assert from_cli.commit is False
    assert from_cli.sources["commit"] == "--heal-no-commit"


def test_resolve_branch_cli_beats_ini() -> None:
    from_ini = resolve(raw_values(ini={"branch": "heal/ini"}))
    assert from_ini.branch == "heal/ini"
    assert from_ini.sources["branch"] == "ini option heal_branch"

    both = resolve(raw_values(cli={"branch": "heal/cli"}, ini={"branch": "heal/ini"}))
    assert both.branch == "heal/cli"
    assert both.sources["branch"] == "--heal-branch"


def test_resolve_bad_branch_names_the_flag() -> None:
    with pytest.raises(SettingError, match=r"^--heal-branch: 'a\.\.b'"):
        resolve(raw_values(cli={"branch": "a..b"}))


def test_resolve_budget_tokens_and_model_timeout() -> None:
    settings = resolve(
        raw_values(
            cli={"budget": "0.25", "model_timeout": "5"},
            env={"CARETAKER_BUDGET": "9"},
            ini={"max_tokens": "40000"},
        )
    )
    assert (settings.budget, settings.max_tokens, settings.model_timeout) == (0.25, 40_000, 5.0)
    assert settings.sources["budget"] == "--heal-budget"
    assert resolve(raw_values(env={"CARETAKER_BUDGET": "9"})).budget == 9.0
    defaults = resolve(raw_values())
    assert (defaults.budget, defaults.max_tokens, defaults.model_timeout) == (None, 200_000, 120.0)


def test_resolve_concurrency() -> None:
    assert resolve(raw_values()).concurrency == 4
    assert resolve(raw_values(cli={"concurrency": "1"})).concurrency == 1
    assert resolve(raw_values(ini={"concurrency": "8"})).concurrency == 8


def test_resolve_workers() -> None:
    assert resolve(raw_values()).workers is None  # one per core, decided where trials start
    assert resolve(raw_values(cli={"workers": "2"})).workers == 2
    with pytest.raises(SettingError, match=r"^--heal-workers: expected a whole number"):
        resolve(raw_values(cli={"workers": "0"}))


def test_resolve_names_the_first_bad_value_in_settings_order() -> None:
    # Not in --help's order (where --heal-branch comes first): the table's layout must not change
    # which of two bad values the user is told about.
    with pytest.raises(SettingError, match=r"^--heal-attempts: "):
        resolve(raw_values(cli={"branch": "a..b", "attempts": "zero"}))
