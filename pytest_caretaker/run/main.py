"""The ``caretaker run`` subcommand: its options (mirroring ``pytest --heal``'s, with the same
environment variables), resolved into Settings, and the heal. Only the standard library and the
settings are imported until a command is run."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_caretaker.settings import RawValues, SettingError, Settings, resolve

#: Interrupted by Ctrl-C, as shells say it.
INTERRUPTED = 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="MODEL",
        help="litellm model to ask, or builtin (the model-free repairer, the default); "
        "repeat for fallbacks",
    )
    parser.add_argument("--api-base", metavar="URL", help="Base URL of an OpenAI-compatible server")
    parser.add_argument("--attempts", metavar="N", help="Attempts per model (default 3)")
    parser.add_argument(
        "--timeout", metavar="S", help="Seconds each run of the command may take (default 60)"
    )
    parser.add_argument(
        "--write", action="store_true", help="Write the verified fix and commit it with git"
    )
    parser.add_argument(
        "--no-commit", action="store_true", help="With --write: write the fix, do not commit it"
    )
    parser.add_argument(
        "--sandbox", metavar="MODE", help="Run candidates in a sandbox: auto, require or off"
    )
    parser.add_argument(
        "--root", type=Path, help="The project's folder (the nearest one up with pyproject.toml…)"
    )
    parser.add_argument(
        "command", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="The command to heal"
    )


def settings_of(args: argparse.Namespace, env: Mapping[str, str]) -> Settings:
    """The flags, then the environment (CARETAKER_MODEL, …); raises SettingError."""
    cli: dict[str, object] = {
        "models": list(args.model),
        "api_base": args.api_base,
        "attempts": args.attempts,
        "timeout": args.timeout,
        "write": True if args.write else None,
        "commit": False if args.no_commit else None,
        "sandbox": args.sandbox,
    }
    try:
        return resolve(RawValues(cli, env, {}))
    except SettingError as error:  # the table names pytest's flags: --heal-timeout is --timeout
        raise SettingError(str(error).replace("--heal-", "--")) from None


def command_of(argv: Sequence[str]) -> tuple[str, ...]:
    return tuple(argv[1:] if argv[:1] == ["--"] else argv)


def run_command(args: argparse.Namespace, root: Path) -> int:
    """Heal args.command in the project at root; its exit status, or caretaker's own."""
    argv = command_of(args.command)
    if not argv:
        print("caretaker: no command given; use caretaker run -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    env = dict(os.environ)
    try:
        settings = settings_of(args, env)
    except SettingError as error:
        print(f"caretaker: {error}", file=sys.stderr)
        return 2
    from pytest_caretaker.run.command import Command
    from pytest_caretaker.run.heal import heal

    try:
        return heal(Command(argv, root, settings, env))
    except KeyboardInterrupt:
        print("caretaker: interrupted (Ctrl-C); nothing was written", file=sys.stderr)
        return INTERRUPTED
