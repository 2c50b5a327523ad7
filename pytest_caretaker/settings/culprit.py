"""The culprit search's rows of the options table (options.py), kept in a module of their own
so that the table stays within the size every module keeps to."""

from __future__ import annotations

from pytest_caretaker.settings.parsers import Option, parse_bool, parse_depth

CULPRIT: tuple[Option, ...] = (
    Option(
        "bisect",
        "--heal-bisect",
        parse_bool,
        "When the history does not know the last commit at which a failing test passed, find "
        "it by running the test at earlier commits (in git worktrees, never your checkout)",
        ini="heal_bisect",
        ini_help="Find the last green commit of a failing test by bisection",
        kind="bool",
    ),
    Option(
        "bisect_depth",
        "--heal-bisect-depth",
        parse_depth,
        "Commits --heal-bisect goes back at most (default 32)",
        ini="heal_bisect_depth",
        ini_help="Commits --heal-bisect goes back at most",
        metavar="N",
    ),
)
