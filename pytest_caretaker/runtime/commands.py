"""``caretaker crashes``: list the crash records with their status; ``crashes heal`` repairs
the open ones offline; ``crashes test`` writes a regression test per replayable crash; ``crashes
clear`` removes records. The arguments and the listing are here; the heal is offline.py's, the
tests testgen.py's, the status lifecycle.py's."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parser is built for every caretaker command: records load when used
    from pytest_caretaker.runtime.records import Crash


def add_arguments(parser: argparse.ArgumentParser) -> None:
    root = "The project's folder (the nearest one up with pyproject.toml…)"
    parser.add_argument("--root", type=Path, help=root)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    heal = actions.add_parser(
        "heal",
        help="Repair recorded crashes, each proved by replaying its call",
        description="Repair the recorded crashes (all of them without IDs), each fix proved by "
        "replaying the recorded call with it in memory (sandboxed where available); report them "
        "as caretaker run does (with --write: write and commit them)",
    )
    heal.add_argument("ids", nargs="*", metavar="ID", help="The crashes to heal (default: all)")
    heal.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="MODEL",
        help="litellm model to ask, or builtin (the model-free repairer); repeat for fallbacks",
    )
    heal.add_argument("--api-base", metavar="URL", help="Base URL of an OpenAI-compatible server")
    heal.add_argument("--attempts", metavar="N", help="Attempts per model (default 3)")
    heal.add_argument("--timeout", metavar="S", help="Seconds each replay may take (default 60)")
    heal.add_argument("--write", action="store_true", help="Write the verified fixes and commit")
    heal.add_argument(
        "--no-commit", action="store_true", help="With --write: write the fixes, do not commit"
    )
    heal.add_argument(
        "--sandbox", metavar="MODE", help="Run candidates in a sandbox: auto, require or off"
    )
    heal.add_argument("--root", type=Path, default=argparse.SUPPRESS, help=root)
    test = actions.add_parser(
        "test",
        help="Write a pytest regression test per replayable crash into tests/",
        description="Write a pytest test per replayable crash into tests/: it calls the function "
        "with the recorded arguments and fails while the call raises",
    )
    test.add_argument("ids", nargs="*", metavar="ID", help="The crashes (default: all)")
    test.add_argument("--root", type=Path, default=argparse.SUPPRESS, help=root)
    clear = actions.add_parser(
        "clear",
        help="Remove crash records: the ones named, the fixed ones, or all",
        description="Remove crash records (with their recorded calls): the ones named by ID, "
        "with --fixed the ones marked fixed, else all of them",
    )
    which = clear.add_mutually_exclusive_group()
    which.add_argument("ids", nargs="*", default=[], metavar="ID", help="The crashes to remove")
    which.add_argument("--fixed", action="store_true", help="Remove the crashes marked fixed")
    clear.add_argument("--root", type=Path, default=argparse.SUPPRESS, help=root)


def crashes_command(args: argparse.Namespace, root: Path) -> int:
    from pytest_caretaker.runtime.records import all_crashes

    crashes = all_crashes(root)
    action = getattr(args, "action", None)
    if action is None:
        return listing(crashes, root)
    if action == "clear" and not crashes:
        return listing(crashes, root)  # nothing to remove is no error
    chosen = chosen_crashes(crashes, getattr(args, "ids", []), root)
    if chosen is None:
        return 2
    if action == "heal":
        from pytest_caretaker.runtime.offline import heal_crashes

        return heal_crashes(args, root, chosen)
    if action == "clear":
        return clear_crashes(chosen, fixed_only=args.fixed)
    from pytest_caretaker.runtime.testgen import write_tests

    return write_tests(root, chosen)


def chosen_crashes(crashes: list[Crash], ids: Sequence[str], root: Path) -> list[Crash] | None:
    """The crashes named by ids (all without ids); None, said in one line, when one is unknown."""
    from pytest_caretaker.runtime.records import folder

    if not crashes:
        print(f"caretaker: no crashes are recorded under {folder(root)}", file=sys.stderr)
        return None
    if not ids:
        return crashes
    known = {crash.id for crash in crashes}
    unknown = [name for name in ids if name not in known]
    if unknown:
        print(
            f"caretaker: no crash is recorded with the id {unknown[0]!r}; "
            "caretaker crashes lists them",
            file=sys.stderr,
        )
        return None
    return [crash for crash in crashes if crash.id in ids]


def listing(crashes: list[Crash], root: Path) -> int:
    from pytest_caretaker.runtime.records import folder

    if not crashes:
        print(f"caretaker: no crashes are recorded under {folder(root)}")
        return 0
    from pytest_caretaker.runtime.lifecycle import status

    rows = [("ID", "EXCEPTION", "COUNT", "LAST SEEN", "STATUS", "REPLAYABLE")]
    for crash in crashes:
        exception = crash.data["exception"]
        said = f"{exception['type']}: {exception['message']}".strip().rstrip(":")
        said = said.splitlines()[0] if said else ""
        said = said if len(said) <= 50 else said[:47] + "..."
        seen = str(crash.data.get("last_seen", "")).replace("T", " ").replace("Z", " UTC")
        replay = "yes" if crash.replayable else f"no: {crash.why}"
        count = str(crash.data.get("count", 1))
        rows.append((crash.id, said, count, seen, status(crash), replay))
    widths = [max(len(row[index]) for row in rows) for index in range(5)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:5], widths, strict=True)]
        print("  ".join([*cells, row[5]]).rstrip())
    return 0


def clear_crashes(chosen: list[Crash], fixed_only: bool) -> int:
    from pytest_caretaker.runtime.lifecycle import clear, fixed
    from pytest_caretaker.text import plural

    if fixed_only:
        chosen = [crash for crash in chosen if fixed(crash) is not None]
        if not chosen:
            print("caretaker: no crash is marked fixed; nothing was removed")
            return 0
    cleared = clear(chosen)
    names = ", ".join(dict.fromkeys(crash.id for crash in cleared))
    print(
        f"caretaker: removed {plural(len(cleared), 'crash record')}"
        + (f" ({names})" if names else "")
    )
    return 0
