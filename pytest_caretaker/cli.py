"""``caretaker``: the command line beside ``pytest --heal``. A small dispatcher: each subcommand
is a function of its own module, and every error it expects becomes one line and exit status 1
(argparse's usage errors are status 2). ``caretaker run`` exits with its command's status, or as
shells do when the command is not found (127), not executable (126), timed out (124) or
interrupted (130)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from pytest_caretaker import __version__
from pytest_caretaker.settings.config import find_root


def parse_since(value: str) -> str:
    """A date (2025-01-31) or a time (2025-01-31T12:00, with or without a zone, local if none)
    as the history's UTC stamp, for comparing with its records."""
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a date; use YYYY-MM-DD or YYYY-MM-DDTHH:MM"
        ) from None
    if when.tzinfo is None:
        when = when.astimezone()  # the user's local time
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="caretaker",
        description="pytest-caretaker beside pytest --heal: heal a command or recorded crashes, "
        "report the history",
    )
    main.add_argument(
        "-V", "--version", action="version", version=f"pytest-caretaker {__version__}"
    )
    commands = main.add_subparsers(dest="command", required=True, metavar="COMMAND")
    report = commands.add_parser(
        "report",
        help="Write the heal history as one HTML page",
        description="Write the heal history (.caretaker/history.jsonl) as one HTML page",
    )
    where = "Where to write it (default .caretaker/report.html)"
    report.add_argument("-o", "--output", type=Path, metavar="PATH", help=where)
    report.add_argument("--since", type=parse_since, metavar="DATE", help="Only heals from DATE on")
    report.add_argument(
        "--root", type=Path, help="The project's folder (the nearest one up with pyproject.toml…)"
    )
    report.set_defaults(run=report_command)
    run = commands.add_parser(
        "run",
        help="Run a command and heal what it reports, fix after fix",
        description="Run COMMAND in the project's root; if it fails, repair what it reports (a "
        "Python crash, each path:line of a project file) one finding after another, prove each "
        "fix by running COMMAND again with it (in memory for a Python script or module, else on "
        "a scratch copy), and report them (with --write: write and commit each)",
        usage="caretaker run [OPTIONS] -- COMMAND [ARG...]",
    )
    from pytest_caretaker.run.main import add_arguments

    add_arguments(run)
    run.set_defaults(run=run_command)
    crashes = commands.add_parser(
        "crashes",
        help="List the crashes runtime healing recorded; heal, test or clear them",
        description="List the crashes @heal and install() recorded under .caretaker/crashes/ "
        "(id, exception, count, last seen, status, replayable); `crashes heal` repairs the open "
        "ones offline, `crashes test` writes a pytest regression test per replayable crash, "
        "`crashes clear` removes records",
    )
    from pytest_caretaker.runtime.commands import add_arguments as add_crash_arguments

    add_crash_arguments(crashes)
    crashes.set_defaults(run=crashes_command)
    _add_summary(commands)
    _add_model(commands)
    _add_merge(commands)
    return main


def _add_summary(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    summary = commands.add_parser(
        "summary",
        help="Print the last session's results as Markdown, for a CI job summary",
        description="Print the results of the last pytest --heal, caretaker run or caretaker "
        "crashes heal (.caretaker/last-run.json) as Markdown: the problems, each fix's commit, "
        'explanation and diff; e.g. caretaker summary >> "$GITHUB_STEP_SUMMARY"',
    )
    from pytest_caretaker.ci.job_summary import add_arguments as add_summary_arguments

    add_summary_arguments(summary)
    summary.set_defaults(run=summary_command)


def _add_merge(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    merge = commands.add_parser(
        "merge",
        help="One verified patch from the fixes of a test suite run in shards",
        description="Merge the fixes of a suite run in CI shards: each DIR is one shard's "
        ".caretaker folder (its last-run.json). Keeps one fix per root cause, drops fixes that "
        "conflict, and writes this checkout's .caretaker/heal.patch and last-run.json",
    )
    merge.add_argument("folders", nargs="+", type=Path, metavar="DIR", help="A shard's .caretaker")
    merge.add_argument("--root", type=Path, help="The project's folder (default: found from here)")
    merge.add_argument(
        "--verify",
        action="store_true",
        help="Run the combined patch against every test a shard passed that reaches a change",
    )
    merge.add_argument("--write", action="store_true", help="Write the fixes, one commit each")
    merge.add_argument("--branch", help="Commit on this branch (created from HEAD if missing)")
    merge.set_defaults(run=merge_command)


def _add_model(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    model = commands.add_parser(
        "model",
        help="List this project's kept model processes (pid, age, memory, idle time); "
        "`model stop` ends them",
        description="List your kept model processes that served this project's sessions (with "
        "--all every one of yours): litellm imported once and kept for the next heal, at most "
        "one per interpreter (pid, age, memory, idle time, sessions); `caretaker model stop` "
        "ends them",
    )
    from pytest_caretaker.llm.keeping import add_arguments as add_model_arguments

    add_model_arguments(model)
    model.set_defaults(run=model_command)


def model_command(args: argparse.Namespace) -> int:
    from pytest_caretaker.llm.keeping import model_command as command

    return command(args)


def report_command(args: argparse.Namespace) -> int:
    from pytest_caretaker.history.page import NoHistory, write_report
    from pytest_caretaker.text import plural

    root = args.root.resolve() if args.root else find_root(Path.cwd())
    try:
        target, stats = write_report(root, args.output, args.since or "")
    except NoHistory as error:
        print(f"caretaker: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"caretaker: could not write the report: {error}", file=sys.stderr)
        return 1
    print(
        f"caretaker: report of {plural(len(stats.bugs), 'bug')} in "
        f"{plural(len(stats.sessions), 'session')} ({stats.healed} healed) written to {target}"
    )
    return 0


def run_command(args: argparse.Namespace) -> int:
    from pytest_caretaker.run.main import run_command as heal_command

    root = args.root.resolve() if args.root else find_root(Path.cwd())
    return heal_command(args, root)


def crashes_command(args: argparse.Namespace) -> int:
    from pytest_caretaker.runtime.commands import crashes_command as command

    root = args.root.resolve() if args.root else find_root(Path.cwd())
    return command(args, root)


def summary_command(args: argparse.Namespace) -> int:
    from pytest_caretaker.ci.job_summary import summary_command as command

    root = args.root.resolve() if args.root else find_root(Path.cwd())
    return command(args, root)


def merge_command(args: argparse.Namespace) -> int:
    from pytest_caretaker.ci.merge_out import main as merge

    root = args.root.resolve() if args.root else find_root(Path.cwd())
    folders = [folder.resolve() for folder in args.folders]
    return merge(folders, root, args.verify, args.branch, args.write)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    status: int = args.run(args)
    return status
