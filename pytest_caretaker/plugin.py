"""The pytest entry point: options, ini keys, validation, and the session object when healing is on.

Nothing else lives here, and nothing heavy is imported: this module is loaded by every pytest run of
everyone who installs the plugin.
"""

from __future__ import annotations

import os

import pytest

from pytest_caretaker.settings import SettingError, Sources, resolve

SESSION_NAME = "caretaker-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("caretaker", "repair failing tests (pytest-caretaker)")
    group.addoption(
        "--heal",
        action="store_true",
        default=None,
        help="Repair failing tests in memory: propose, verify and report fixes; no file is changed",
    )
    group.addoption(
        "--heal-model",
        action="append",
        default=[],
        metavar="MODEL",
        help="litellm model to ask, e.g. openai/gpt-4o-mini, or builtin (the model-free "
        "repairer, the default); repeat for fallbacks",
    )
    group.addoption(
        "--heal-api-base",
        default=None,
        metavar="URL",
        help="Base URL of an OpenAI-compatible or Ollama server",
    )
    group.addoption(
        "--heal-scope",
        default=None,
        metavar="code|tests|any",
        help="What may be edited: code (default; tests are the specification), tests, or any",
    )
    group.addoption(
        "--heal-attempts",
        default=None,
        metavar="N",
        help="Model rounds per failure, each told why the previous one was rejected (default 3)",
    )
    group.addoption(
        "--heal-timeout",
        default=None,
        metavar="SECONDS",
        help="Seconds one verification run may take (default 60)",
    )
    group.addoption(
        "--heal-builtin-budget",
        default=None,
        metavar="SECONDS",
        help="Seconds the built-in repairer may spend on one failure (default 20)",
    )
    parser.addini("heal", "Repair failing tests in memory (like --heal)", type="bool", default=None)
    parser.addini("heal_model", "litellm model(s) to ask, one per line", type="linelist")
    parser.addini("heal_api_base", "Base URL of an OpenAI-compatible or Ollama server")
    parser.addini("heal_scope", "What may be edited: code, tests or any")
    parser.addini("heal_attempts", "Model rounds per failure")
    parser.addini("heal_timeout", "Seconds one verification run may take")
    parser.addini("heal_builtin_budget", "Seconds the built-in repairer may spend on one failure")


def pytest_configure(config: pytest.Config) -> None:
    try:
        settings = resolve(
            Sources(
                cli={
                    "heal": config.getoption("heal"),
                    "models": config.getoption("heal_model"),
                    "api_base": config.getoption("heal_api_base"),
                    "scope": config.getoption("heal_scope"),
                    "attempts": config.getoption("heal_attempts"),
                    "timeout": config.getoption("heal_timeout"),
                    "builtin_budget": config.getoption("heal_builtin_budget"),
                },
                env=os.environ,
                ini={
                    "heal": config.getini("heal"),
                    "models": config.getini("heal_model"),
                    "api_base": config.getini("heal_api_base"),
                    "scope": config.getini("heal_scope"),
                    "attempts": config.getini("heal_attempts"),
                    "timeout": config.getini("heal_timeout"),
                    "builtin_budget": config.getini("heal_builtin_budget"),
                },
            )
        )
    except SettingError as error:
        raise pytest.UsageError(f"caretaker: {error}") from None
    if not settings.heal or hasattr(config, "workerinput"):
        return  # pytest-xdist workers never heal: the controller owns the session
    from pytest_caretaker.session import HealSession

    config.pluginmanager.register(HealSession(config, settings), SESSION_NAME)
