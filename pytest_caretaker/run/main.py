"""The ``caretaker run`` subcommand: its options (mirroring ``pytest --heal``'s, with the same
environment variables), resolved into Settings, and the heal. Only the standard library and the
settings are imported until a command is run."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_caretaker.run.command import DEFAULT_ITERATIONS, INTERRUPTED
from pytest_caretaker.settings import RawValues, SettingError, Settings, resolve
from pytest_caretaker.settings.config import ini_values

#: The options that take a value and mean what their ``--heal-`` namesakes of pytest mean.
VALUED = (
    ("--api-base", "URL", "Base URL of an OpenAI-compatible server"),
    ("--attempts", "N", "Attempts per model (default 3)"),
    ("--timeout", "S", "Seconds each run of the command may take (default 60)"),
    ("--budget", "USD", "US dollars the run may spend on models (default no limit)"),
    ("--scope", "SCOPE", "What a fix may edit: code (the default), tests or any"),
    ("--concurrency", "N", "Model requests at once (findings are fixed in turn)"),
    ("--sandbox", "MODE", "Run candidates in a sandbox: auto, require or off"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="MODEL",
        help="litellm model to ask, or builtin (the model-free repairer, the default); "
        "repeat for fallbacks",
    )
    for flag, metavar, text in VALUED:
        parser.add_argument(flag, metavar=metavar, help=text)
    _add_loop_arguments(parser)
    parser.add_argument(
        "--root", type=Path, help="The project's folder (the nearest one up with pyproject.toml…)"
    )
    parser.add_argument(
        "command", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="The command to heal"
    )


def _add_loop_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--iterations",
        type=_positive,
        default=None,
        metavar="N",
        help=f"Findings to try, one after another, each on top of the fixes before it "
        f"(default {DEFAULT_ITERATIONS})",
    )
    tests = parser.add_mutually_exclusive_group()
    tests.add_argument(
        "--tests",
        dest="tests",
        action="store_true",
        default=None,
        help="A fix must keep the project's passing pytest tests passing (the default when it "
        "has tests)",
    )
    tests.add_argument(
        "--no-tests", dest="tests", action="store_false", help="Do not run the project's tests"
    )
    parser.add_argument(
        "--write", action="store_true", help="Write each verified fix and commit it with git"
    )
    parser.add_argument(
        "--no-commit", action="store_true", help="With --write: write the fixes, commit none"
    )
    parser.add_argument(
        "--branch", metavar="NAME", help="With --write: commit on this branch (made from HEAD)"
    )
    parser.add_argument(
        "--log",
        metavar="FILE",
        help="With --write: add each fix's explanation to this Markdown file (e.g. FIXES.md), "
        "committed with the fix",
    )


def settings_of(args: argparse.Namespace, env: Mapping[str, str], root: Path) -> Settings:
    """The flags, then the environment (CARETAKER_MODEL, …), then the project's pytest ini keys
    (heal_model, …); raises SettingError."""
    cli: dict[str, object] = {
        "models": list(args.model),
        "api_base": args.api_base,
        "attempts": args.attempts,
        "timeout": args.timeout,
        "budget": args.budget,
        "scope": args.scope,
        "concurrency": args.concurrency,
        "write": True if args.write else None,
        "commit": False if args.no_commit else None,
        "branch": args.branch,
        "sandbox": args.sandbox,
    }
    try:
        return resolve(RawValues(cli, env, ini_values(root)))
    except SettingError as error:  # the table names pytest's flags: --heal-timeout is --timeout
        raise SettingError(str(error).replace("--heal-", "--")) from None


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of 1 or more")
    return number


def _log(args: argparse.Namespace, settings: Settings, root: Path) -> str | None:
    """--log's file relative to the root; raises SettingError."""
    if not args.log:
        return None
    if not settings.write:
        raise SettingError("--log needs --write: only written fixes are logged")
    path = (Path.cwd() / str(args.log)).resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        raise SettingError(f"--log {args.log} is outside the project ({root})") from None


def command_of(argv: Sequence[str]) -> tuple[str, ...]:
    return tuple(argv[1:] if argv[:1] == ["--"] else argv)


def run_command(args: argparse.Namespace, root: Path) -> int:
    """Heal args.command in the project at root; its exit status, or caretaker's own."""
    argv = command_of(args.command)
    if not argv:
        print("caretaker: no command given; use caretaker run -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    if is_pytest(argv):
        return _pytest_heals(args, argv, root)
    env = dict(os.environ)
    try:
        settings = settings_of(args, env, root)
        log = _log(args, settings, root)
    except SettingError as error:
        print(f"caretaker: {error}", file=sys.stderr)
        return 2
    from pytest_caretaker.record.redact import Redactor
    from pytest_caretaker.run.command import Command, Run
    from pytest_caretaker.run.heal import heal

    iterations = args.iterations or DEFAULT_ITERATIONS
    run = Run(argv, root, settings, Redactor.for_project(root, env), iterations, log)
    try:
        return heal(Command(argv, root, settings, env, tests=args.tests), run)
    except KeyboardInterrupt:
        print("caretaker: interrupted (Ctrl-C); nothing was written", file=sys.stderr)
        return INTERRUPTED


#: caretaker run's options that pytest --heal has too, under its own name.
_AS_PYTEST = {
    "model": "--heal-model",
    "api_base": "--heal-api-base",
    "attempts": "--heal-attempts",
    "timeout": "--heal-timeout",
    "budget": "--heal-budget",
    "scope": "--heal-scope",
    "concurrency": "--heal-concurrency",
    "sandbox": "--heal-sandbox",
    "branch": "--heal-branch",
}


def is_pytest(argv: Sequence[str]) -> bool:
    """Whether the command is pytest: ``pytest``/``py.test`` or ``python -m pytest``."""
    from pytest_caretaker.run.command import python_target

    if Path(argv[0]).name in ("pytest", "py.test"):
        return True
    target = python_target(argv)
    return target is not None and target.kind == "module" and target.name == "pytest"


def _pytest_heals(args: argparse.Namespace, argv: Sequence[str], root: Path) -> int:
    """pytest heals itself: run it with --heal and caretaker run's options as pytest's."""
    import subprocess

    for flag, given in (("--log", args.log), ("--iterations", args.iterations)):
        if given is not None:
            print(
                f"caretaker: {flag} is caretaker run's own; pytest --heal has none", file=sys.stderr
            )
            return 2
    if args.tests is not None:
        print(
            "caretaker: --tests/--no-tests do not apply to pytest (its tests are the command)",
            file=sys.stderr,
        )
        return 2
    extra = ["--heal"]
    for name, flag in _AS_PYTEST.items():
        values = getattr(args, name)
        for value in values if isinstance(values, list) else [values]:
            if value is not None:
                extra += [flag, str(value)]
    extra += ["--heal-write"] if args.write else []
    extra += ["--heal-no-commit"] if args.no_commit else []
    command = [*argv, *extra]
    print(f"caretaker: pytest heals itself: {' '.join(command)}", file=sys.stderr)
    try:
        return subprocess.run(command, cwd=root).returncode
    except OSError as error:
        print(f"caretaker: could not run {argv[0]}: {error.strerror}", file=sys.stderr)
        return 127
    except KeyboardInterrupt:
        return INTERRUPTED
