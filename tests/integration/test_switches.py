"""Switches around healing (#31 item 8): --no-heal turns it off whatever else says to heal, the
numeric ini keys are typed as pytest shows them, and ``caretaker --version``."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from pytest_caretaker import __version__
from pytest_caretaker.plugin.hooks import settings_of
from pytest_caretaker.settings.options import OPTIONS

FAILING = "def test_bad():\n    assert 1 + 1 == 3\n"
NUMBERS = pytest.version_tuple >= (8, 4)  # pytest reads int and float ini keys from 8.4 on


@pytest.mark.parametrize(
    ("ini", "env", "args"),
    [
        ("heal = true\n", {}, []),
        ("heal_write = true\n", {}, []),
        ("", {"CARETAKER_HEAL": "1"}, []),
        ("", {}, ["--heal-write"]),
    ],
    ids=["ini", "ini-write", "env", "flag"],
)
def test_no_heal_beats_every_way_of_turning_healing_on(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    ini: str,
    env: dict[str, str],
    args: list[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makeini(f"[pytest]\n{ini}")
    assert settings_of(pytester.parseconfig(*args)).heal  # without it, healing is on

    settings = settings_of(pytester.parseconfig(*args, "--no-heal"))

    assert not settings.heal and not settings.write


def test_no_heal_runs_the_tests_and_heals_nothing(pytester: pytest.Pytester) -> None:
    # A bad value of another setting does not stop the run either: nothing of it is read.
    pytester.makeini("[pytest]\nheal = true\nheal_attempts = many\n")
    pytester.makepyfile(test_calc=FAILING)

    result = pytester.runpytest("--no-heal")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(failed=1)
    assert "caretaker:" not in result.stdout.str()  # no header, no summary


@pytest.mark.skipif(not NUMBERS, reason="pytest reads numeric ini keys from 8.4 on")
def test_numeric_ini_keys_are_typed_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")

    out = result.stdout.str()
    shown = dict(re.findall(r"^  (heal\w*) \((\w+)\):", out, re.M))
    assert shown["heal_attempts"] == "int"
    assert shown["heal_max_tokens"] == "int"
    assert shown["heal_concurrency"] == "int"
    assert shown["heal_timeout"] == "float"
    assert shown["heal_model_keep"] == "float"
    assert shown["heal_budget"] == "string"  # "$0.50" is a value it takes
    assert shown["heal"] == "bool"
    typed = {option.ini: option.ini_type for option in OPTIONS if option.ini is not None}
    assert shown == typed


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("heal_attempts = 5", 5),
        ("heal_timeout = 12.5", 12.5),
        ("heal_max_tokens = 50_000", 50_000),
    ],
)
def test_numeric_ini_keys_reach_the_settings(
    pytester: pytest.Pytester, line: str, expected: float
) -> None:
    pytester.makeini(f"[pytest]\n{line}\n")
    name = {"heal_attempts": "attempts", "heal_timeout": "timeout"}.get(
        line.split()[0], "max_tokens"
    )
    assert getattr(settings_of(pytester.parseconfig("--heal")), name) == expected


def test_numeric_ini_keys_in_toml_are_numbers(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.pytest.ini_options]\nheal_attempts = 4\nheal_timeout = 9\n")
    settings = settings_of(pytester.parseconfig("--heal"))
    assert (settings.attempts, settings.timeout) == (4, 9.0)


@pytest.mark.parametrize("value", ["many", "0"])
def test_a_bad_number_in_the_ini_file_is_one_usage_error_line(
    pytester: pytest.Pytester, value: str
) -> None:
    pytester.makeini(f"[pytest]\nheal_attempts = {value}\n")
    pytester.makepyfile(test_ok="def test_ok():\n    pass\n")

    result = pytester.runpytest("--heal")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1
    assert errors[0].startswith("ERROR: caretaker: ini option heal_attempts: expected a whole ")
    assert value in errors[0]


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_caretaker_version(flag: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_caretaker", flag],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"pytest-caretaker {__version__}\n"
