"""The pytest entry point: options, ini keys, validation, and the session object when healing is on.

Nothing else lives here, and nothing heavy is imported: this module is loaded by every pytest run of
everyone who installs the plugin.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator, Mapping
from dataclasses import replace

import pytest

from pytest_caretaker.settings import SettingError, Settings, Sources, detect_ci, resolve

SESSION_NAME = "caretaker-session"
#: Whether stdin was a terminal before pytest's capture replaced it (for --heal-review).
STDIN_IS_TTY = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Generator[None]:
    # tryfirst: this wrapper runs before the capture plugin's replaces stdin.
    early_config.stash[STDIN_IS_TTY] = sys.stdin is not None and sys.stdin.isatty()
    return (yield)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("caretaker", "repair failing tests (pytest-caretaker)")
    group.addoption(
        "--heal",
        action="store_true",
        default=None,
        help="Repair failing tests in memory: propose, verify and report fixes; no file is changed",
    )
    group.addoption(
        "--heal-write",
        action="store_true",
        default=None,
        help="Like --heal, then write the verified fixes to disk and commit each one with git",
    )
    group.addoption(
        "--heal-review",
        action="store_true",
        default=None,
        help="Like --heal-write, but show each verified fix and ask before writing it "
        "(needs a terminal)",
    )
    group.addoption(
        "--heal-branch",
        default=None,
        metavar="NAME",
        help="Commit the fixes on this git branch, created from HEAD if missing",
    )
    group.addoption(
        "--heal-no-commit",
        action="store_true",
        default=None,
        help="Write the fixes but do not commit them",
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
    group.addoption(
        "--heal-model-timeout",
        default=None,
        metavar="SECONDS",
        help="Seconds one model request may take (default 120)",
    )
    group.addoption(
        "--heal-budget",
        default=None,
        metavar="USD",
        help="US dollars the session may spend on model calls; once spent, the remaining "
        "failures are not attempted (default: no limit)",
    )
    group.addoption(
        "--heal-max-tokens",
        default=None,
        metavar="N",
        help="Tokens one failure may use across its attempts (default 200000)",
    )
    group.addoption(
        "--heal-concurrency",
        default=None,
        metavar="N",
        help="Failures repaired at once (default 4); their model calls overlap",
    )
    group.addoption(
        "--heal-prompt",
        default=None,
        metavar="DIR",
        help="A folder of Jinja2 prompt templates that override caretaker's own "
        "(system.j2, user.j2, retry.j2, rules.j2; see the README)",
    )
    group.addoption(
        "--heal-models",
        action="store_true",
        default=False,
        help="List the models caretaker can use here (keys, local servers, capabilities, "
        "prices) and the one it would choose, then exit",
    )
    parser.addini("heal", "Repair failing tests in memory (like --heal)", type="bool", default=None)
    parser.addini(
        "heal_write",
        "Write verified fixes and commit them (like --heal-write)",
        type="bool",
        default=None,
    )
    parser.addini("heal_branch", "git branch to commit fixes on")
    parser.addini("heal_commit", "Commit written fixes (default true)", type="bool", default=None)
    parser.addini("heal_model", "litellm model(s) to ask, one per line", type="linelist")
    parser.addini("heal_api_base", "Base URL of an OpenAI-compatible or Ollama server")
    parser.addini("heal_scope", "What may be edited: code, tests or any")
    parser.addini("heal_attempts", "Model rounds per failure")
    parser.addini("heal_timeout", "Seconds one verification run may take")
    parser.addini("heal_builtin_budget", "Seconds the built-in repairer may spend on one failure")
    parser.addini("heal_model_timeout", "Seconds one model request may take")
    parser.addini("heal_budget", "US dollars the session may spend on model calls")
    parser.addini("heal_max_tokens", "Tokens one failure may use across its attempts")
    parser.addini("heal_concurrency", "Failures repaired at once")
    parser.addini("heal_prompt", "A folder of prompt templates overriding caretaker's own")


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """--heal-models: print what can be used here, and exit (like --fixtures or --markers)."""
    if not config.getoption("heal_models"):
        return None
    from pytest_caretaker.llm.models import listing

    sys.stdout.write(listing(settings_of(config), os.environ))
    sys.stdout.flush()
    return 0


def settings_of(config: pytest.Config) -> Settings:
    """The options resolved (command line > environment > ini); a bad value is a usage error."""
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
                    "model_timeout": config.getoption("heal_model_timeout"),
                    "budget": config.getoption("heal_budget"),
                    "max_tokens": config.getoption("heal_max_tokens"),
                    "concurrency": config.getoption("heal_concurrency"),
                    "write": config.getoption("heal_write"),
                    "review": config.getoption("heal_review"),
                    "branch": config.getoption("heal_branch"),
                    "commit": False if config.getoption("heal_no_commit") else None,
                    "prompt_dir": config.getoption("heal_prompt"),
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
                    "model_timeout": config.getini("heal_model_timeout"),
                    "budget": config.getini("heal_budget"),
                    "max_tokens": config.getini("heal_max_tokens"),
                    "concurrency": config.getini("heal_concurrency"),
                    "write": config.getini("heal_write"),
                    "branch": config.getini("heal_branch"),
                    "commit": config.getini("heal_commit"),
                    "prompt_dir": config.getini("heal_prompt"),
                },
            )
        )
    except SettingError as error:
        raise pytest.UsageError(f"caretaker: {error}") from None
    if settings.prompt_dir is not None:
        # Relative to where pytest was started, or to the ini file that names the folder.
        from_ini = settings.sources.get("prompt_dir", "").startswith("ini")
        base = (
            config.inipath.parent if from_ini and config.inipath else config.invocation_params.dir
        )
        folder = (base / settings.prompt_dir).resolve()
        settings = replace(settings, prompt_dir=str(folder))
    return settings


def pytest_configure(config: pytest.Config) -> None:
    settings = settings_of(config)
    if settings.review and not hasattr(config, "workerinput"):
        refuse_review(os.environ, config.stash.get(STDIN_IS_TTY, False))
    if not settings.heal:
        return
    from pytest_caretaker.session import HealSession, WorkerRecorder

    if hasattr(config, "workerinput"):  # a pytest-xdist worker records; the controller heals
        config.pluginmanager.register(WorkerRecorder(config, settings), SESSION_NAME)
        return
    from pytest_caretaker.llm.models import choose

    if settings.prompt_dir is not None:
        from pytest_caretaker.llm.prompts import PromptError, check_folder

        try:
            check_folder(settings.prompt_dir)
        except PromptError as error:
            raise pytest.UsageError(f"caretaker: {error}") from None
    settings = choose(settings, os.environ)
    config.pluginmanager.register(HealSession(config, settings), SESSION_NAME)


def refuse_review(env: Mapping[str, str], stdin_is_tty: bool) -> None:
    """--heal-review asks a person before each write: refuse it where nobody can answer."""
    ci = detect_ci(env)
    if ci is not None:
        raise pytest.UsageError(
            f"caretaker: --heal-review asks before each write and is refused in CI ({ci} is set); "
            "use --heal-write, e.g. with --heal-branch, to write the fixes without asking"
        )
    if not stdin_is_tty:
        raise pytest.UsageError(
            "caretaker: --heal-review asks before each write and needs a terminal, "
            "but stdin is not one; use --heal-write to write the fixes without asking"
        )
