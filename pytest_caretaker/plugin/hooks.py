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

from pytest_caretaker import own  # its references are taken now: before any conftest or test
from pytest_caretaker.settings import (
    OPTIONS,
    Option,
    RawValues,
    SettingError,
    Settings,
    detect_ci,
    resolve,
)

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
    for option in OPTIONS:
        group.addoption(option.flag, **option.arguments())
    group.addoption(
        "--no-heal",
        action="store_true",
        default=False,
        help="Do not heal, whatever the ini file, CARETAKER_HEAL or other flags say",
    )
    group.addoption(
        "--heal-models",
        action="store_true",
        default=False,
        help="List the models caretaker can use here (keys, local servers, capabilities, "
        "prices) and the one it would choose, then exit",
    )
    for option in OPTIONS:
        if option.ini is None:
            continue
        kind = option.ini_type
        if kind in ("int", "float") and pytest.version_tuple < (8, 4):
            kind = "string"  # pytest reads numbers from 8.4 on; the parser reads the text
        if kind in ("bool", "int", "float"):
            # None, not False or 0: a key the ini file does not set leaves it to the others.
            parser.addini(option.ini, option.ini_help, type=kind, default=None)
        else:
            parser.addini(option.ini, option.ini_help, type=kind)


def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """--heal-models: print what can be used here, and exit (like --fixtures or --markers)."""
    if not config.getoption("heal_models"):
        return None
    from pytest_caretaker.llm.listing import text

    sys.stdout.write(text(settings_of(config), os.environ))
    sys.stdout.flush()
    return 0


def settings_of(config: pytest.Config) -> Settings:
    """The options resolved (command line > environment > ini); a bad value is a usage error.
    --no-heal turns healing off before any of them is read (a bad one cannot stop the run)."""
    if config.getoption("no_heal", False):
        return Settings()
    cli = {option.name: option.from_flag(config.getoption(option.dest)) for option in OPTIONS}
    ini = {option.name: ini_value(config, option) for option in OPTIONS if option.ini is not None}
    try:
        settings = resolve(RawValues(cli=cli, env=os.environ, ini=ini))
    except SettingError as error:
        raise pytest.UsageError(f"caretaker: {error}") from None
    if settings.prompt_dir is not None:
        # Relative to where pytest was started, or to the ini file that names the folder.
        from_ini = settings.sources.get("prompt_dir", "").startswith("ini")
        base = (
            config.inipath.parent if from_ini and config.inipath else config.invocation_params.dir
        )
        # abspath, not resolve: a link loop is check_folder's one-line error, not a RuntimeError.
        settings = replace(settings, prompt_dir=os.path.abspath(base / settings.prompt_dir))
    return settings


def ini_value(config: pytest.Config, option: Option) -> object:
    """The ini key's value as pytest reads it; a number it cannot read is a usage error."""
    try:
        return config.getini(str(option.ini))
    except (ValueError, TypeError, pytest.UsageError) as error:  # UsageError: pytest 9
        expected = "a whole number" if option.ini_type == "int" else "a number"
        raise pytest.UsageError(
            f"caretaker: ini option {option.ini}: expected {expected} ({error})"
        ) from None


def pytest_configure(config: pytest.Config) -> None:
    settings = settings_of(config)
    if settings.review and not hasattr(config, "workerinput"):
        refuse_review(os.environ, config.stash.get(STDIN_IS_TTY, False))
    if not settings.heal:
        return
    from pytest_caretaker.plugin.recorder import WorkerRecorder
    from pytest_caretaker.plugin.session import HealSession

    if hasattr(config, "workerinput"):  # a pytest-xdist worker records; the controller heals
        config.pluginmanager.register(WorkerRecorder(config, settings), SESSION_NAME)
        return
    from pytest_caretaker.llm.models import choose

    if settings.prompt_dir is not None:
        from pytest_caretaker.llm.prompts import PromptError, check_folder

        try:
            check_folder(settings.prompt_dir, settings.sources.get("prompt_dir", "--heal-prompt"))
        except PromptError as error:
            raise pytest.UsageError(f"caretaker: {error}") from None
    settings = choose(settings, os.environ)  # a model without litellm: left out, and said
    with own.restored():  # a conftest may have patched subprocess on import
        unsandboxed = sandbox_unavailable(settings)
    config.pluginmanager.register(HealSession(config, settings, unsandboxed), SESSION_NAME)


def sandbox_unavailable(settings: Settings) -> str | None:
    """Why candidates cannot run sandboxed here (None: they can, or the sandbox is off); a usage
    error when --heal-sandbox require cannot be met."""
    if settings.sandbox == "off":
        return None
    from pytest_caretaker.verify.probe import unavailable

    reason = unavailable(settings.sandbox_network)
    if reason is not None and settings.sandbox == "require":
        where = settings.sources.get("sandbox", "--heal-sandbox")
        raise pytest.UsageError(
            f"caretaker: {where} require: candidates cannot run sandboxed here ({reason}); "
            "use auto to run them unsandboxed, or run where Linux namespaces and Landlock are "
            "available"
        )
    return reason


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
