"""Options: every row of settings.OPTIONS is wired end to end, so that none is half-added.

For each setting, its flag is accepted by pytest, its ini key (if it has one) and its environment
variable (if it has one) reach Settings, and the command line beats the environment, which beats
the ini file. A new row fails here until it has a sample below.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import pytest

from pytest_caretaker.plugin.hooks import settings_of
from pytest_caretaker.settings import OPTIONS, Option, Settings


@dataclass(frozen=True)
class Sample:
    """A text for each source that has the setting, and the value each resolves to."""

    cli: str | None  # the flag's argument; None for a flag that takes none
    from_cli: object
    env: str | None = None
    from_env: object = None
    ini: str | None = None
    from_ini: object = None


SAMPLES = {
    "heal": Sample(None, True, "0", False, "true", True),
    "write": Sample(None, True, "0", False, "true", True),
    "review": Sample(None, True),
    "branch": Sample("heal/cli", "heal/cli", ini="heal/ini", from_ini="heal/ini"),
    "commit": Sample(None, False, ini="true", from_ini=True),
    "models": Sample(
        "cli-model", ("cli-model",), "env-a,env-b", ("env-a", "env-b"), "ini-model", ("ini-model",)
    ),
    "api_base": Sample(
        "http://cli/", "http://cli", "http://env/", "http://env", "http://ini/", "http://ini"
    ),
    "scope": Sample("any", "any", ini="tests", from_ini="tests"),
    "attempts": Sample("5", 5, ini="2", from_ini=2),
    "timeout": Sample("12.5", 12.5, ini="30", from_ini=30.0),
    "builtin_budget": Sample("7", 7.0, ini="9", from_ini=9.0),
    "session_budget": Sample("300", 300.0, ini="60", from_ini=60.0),
    "model_timeout": Sample("5", 5.0, ini="50", from_ini=50.0),
    "model_keep": Sample("0", 0.0, "120", 120.0, "900", 900.0),
    "budget": Sample("0.25", 0.25, "9", 9.0, "$2", 2.0),
    "max_tokens": Sample("5000", 5000, ini="40000", from_ini=40_000),
    "session_tokens": Sample("50000", 50_000, "2,000,000", 2_000_000, "400000", 400_000),
    "concurrency": Sample("2", 2, ini="8", from_ini=8),
    "workers": Sample("3", 3, ini="16", from_ini=16),
    "partial": Sample(None, True, ini="true", from_ini=True),
    "accept_unsure": Sample(None, True, ini="true", from_ini=True),
    "bisect": Sample(None, True, ini="true", from_ini=True),
    "bisect_depth": Sample("8", 8, ini="64", from_ini=64),
    "prompt_dir": Sample("cli-prompts", "cli-prompts", ini="ini-prompts", from_ini="ini-prompts"),
    "sandbox": Sample("off", "off", "require", "require", "off", "off"),
    "sandbox_network": Sample(None, True, ini="true", from_ini=True),
    "cache": Sample(None, False, ini="true", from_ini=True),
    "transcripts": Sample("5", 5, "0", 0, "40", 40),
}

ROWS = [pytest.param(option, id=option.flag) for option in OPTIONS]
WITH_INI = [pytest.param(option, id=option.flag) for option in OPTIONS if option.ini is not None]
WITH_ENV = [pytest.param(option, id=option.flag) for option in OPTIONS if option.env is not None]


def sample_of(option: Option) -> Sample:
    assert option.name in SAMPLES, f"{option.flag}: add a sample for it to SAMPLES"
    return SAMPLES[option.name]


def args_of(option: Option, sample: Sample) -> list[str]:
    return [option.flag] if sample.cli is None else [option.flag, sample.cli]


def seen(settings: Settings, option: Option) -> object:
    value = getattr(settings, option.name)
    if option.name == "prompt_dir":
        # The plugin makes the folder absolute, from where pytest started or the ini file.
        return Path(value).name
    return value


@pytest.fixture(autouse=True)
def _no_model_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    # The suite sets CARETAKER_MODEL_KEEP=0 for every test (tests/conftest.py); here each row's
    # sources are tried one by one, and that variable would be the environment's value.
    monkeypatch.delenv("CARETAKER_MODEL_KEEP")


def settings_from(pytester: pytest.Pytester, *args: str) -> Settings:
    return settings_of(pytester.parseconfig(*args))


def test_every_setting_has_one_row() -> None:
    settable = [
        item.name
        for item in fields(Settings)
        if item.name not in ("reason", "environment", "sources")
    ]
    assert sorted(option.name for option in OPTIONS) == sorted(settable)


@pytest.mark.parametrize(
    "attribute", ["flag", "dest", "ini", "env"], ids=["flags", "dests", "ini keys", "env"]
)
def test_no_two_rows_share_a_name(attribute: str) -> None:
    names = [getattr(option, attribute) for option in OPTIONS]
    given = [name for name in names if name is not None]
    assert len(given) == len(set(given))


@pytest.mark.parametrize("option", ROWS)
def test_sample_covers_the_row(option: Option) -> None:
    sample = sample_of(option)
    assert (sample.ini is None) == (option.ini is None)
    assert (sample.env is None) == (option.env is None)
    assert (sample.cli is None) == (option.kind == "bool")


@pytest.mark.parametrize("option", ROWS)
def test_flag_reaches_settings(pytester: pytest.Pytester, option: Option) -> None:
    sample = sample_of(option)
    settings = settings_from(pytester, *args_of(option, sample))
    assert seen(settings, option) == sample.from_cli
    assert settings.sources[option.name] == option.flag


@pytest.mark.parametrize("option", [row for row in ROWS if row.values[0].ini])  # type: ignore[union-attr]
def test_ini_key_reaches_settings(pytester: pytest.Pytester, option: Option) -> None:
    sample = sample_of(option)
    pytester.makeini(f"[pytest]\n{option.ini} = {sample.ini}\n")
    settings = settings_from(pytester)
    assert seen(settings, option) == sample.from_ini
    assert settings.sources[option.name] == f"ini option {option.ini}"


@pytest.mark.parametrize("option", [row for row in ROWS if row.values[0].env])  # type: ignore[union-attr]
def test_env_reaches_settings(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, option: Option
) -> None:
    sample = sample_of(option)
    assert option.env is not None and sample.env is not None
    monkeypatch.setenv(option.env, sample.env)
    settings = settings_from(pytester)
    assert seen(settings, option) == sample.from_env
    assert settings.sources[option.name] == option.env


@pytest.mark.parametrize("option", ROWS)
def test_command_line_beats_environment_beats_ini(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, option: Option
) -> None:
    sample = sample_of(option)
    if option.ini is not None:
        pytester.makeini(f"[pytest]\n{option.ini} = {sample.ini}\n")
    if option.env is not None and sample.env is not None:
        monkeypatch.setenv(option.env, sample.env)

    everything = settings_from(pytester, *args_of(option, sample))
    assert seen(everything, option) == sample.from_cli
    assert everything.sources[option.name] == option.flag

    without_flag = settings_from(pytester)
    if option.env is not None:
        assert seen(without_flag, option) == sample.from_env
        assert without_flag.sources[option.name] == option.env
    elif option.ini is not None:
        assert seen(without_flag, option) == sample.from_ini
        assert without_flag.sources[option.name] == f"ini option {option.ini}"
    else:
        assert option.name not in without_flag.sources
