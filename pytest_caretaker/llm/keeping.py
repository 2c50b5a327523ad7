"""``caretaker model``: list this user's kept model processes (kept.py), and ``caretaker model
stop`` ends them. They are found by their listening sockets' names in /proc/net/unix and asked
over the socket itself (only this user's, outside any sandbox, answer). Only those that served
the project of the working directory (or a project inside it) are shown and stopped, unless
``--all`` asks for every one of the user's: another project's session may be using its own.
Standard library only.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from pytest_caretaker.llm import kept
from pytest_caretaker.settings.config import find_root
from pytest_caretaker.text import plural

#: Flag of a listening socket in /proc/net/unix (__SO_ACCEPTCON).
_LISTENING = 0x10000


@dataclass(frozen=True)
class Kept:
    """A kept model process as it describes itself."""

    name: str  # of its socket
    pid: int
    age: float  # seconds since it started
    memory: int  # resident bytes
    idle: float  # seconds since its last request or session
    sessions: int
    models: tuple[str, ...]
    projects: tuple[str, ...] = ()  # the folders of the projects whose sessions it served
    environment: str = ""  # the virtual environment it runs from (extra.py)

    def serves(self, project: Path) -> bool:
        """Whether it served the project at project, or a project inside it."""
        return any(Path(p) == project or project in Path(p).parents for p in self.projects)


_ALL_HELP = "Every one of your kept model processes, whichever project's sessions they served"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: the flag is the parent's and the subcommand's, and neither default hides the other
    parser.add_argument("--all", action="store_true", default=argparse.SUPPRESS, help=_ALL_HELP)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    stop = actions.add_parser(
        "stop",
        help="End this project's kept model processes (all of them, or the PIDs given)",
        description="End the kept model processes of this project's sessions, all of them or "
        "the PIDs given, or with --all every one of yours (a session using one asks in a "
        "process of its own from then on)",
    )
    stop.add_argument("pids", nargs="*", type=int, metavar="PID", help="Only these processes")
    stop.add_argument("--all", action="store_true", default=argparse.SUPPRESS, help=_ALL_HELP)
    setup = actions.add_parser(
        "setup",
        help="Create or update caretaker's model environment (litellm, apart from the project's)",
        description="Create or update the virtual environment the model process runs from, in "
        "your cache ($CARETAKER_MODEL_ENV puts it elsewhere), holding litellm at the versions "
        "caretaker is tested with: the test environment then needs only the base install",
    )
    key = actions.add_parser(
        "key",
        help="Print a cache key for the model environment (CI caches)",
        description="Print a key that changes with caretaker's version, the platform, Python's "
        "version and what setup installs: a CI cache's key for the environment's folder",
    )
    for each in (setup, key):
        each.add_argument("--python", metavar="PATH", help="The interpreter to build it with")
        each.add_argument(
            "--from-requirements",
            type=Path,
            metavar="FILE",
            help="Install these pinned requirements (they must include litellm) instead",
        )


def model_command(args: argparse.Namespace) -> int:
    if getattr(args, "action", None) in ("setup", "key"):
        from pytest_caretaker.llm import modelenv

        return modelenv.command(args)
    if not sys.platform.startswith("linux"):
        print("caretaker: model processes are kept on Linux only; none is kept here")
        return 0
    found = [k for name in names_listening() if (k := status(name)) is not None]
    project = find_root(Path.cwd())
    everyone = getattr(args, "all", False)
    if getattr(args, "action", None) == "stop":
        if args.pids:  # the processes named, whichever project's: they are the user's own
            found = [k for k in found if k.pid in args.pids]
        elif not everyone:
            found = [k for k in found if k.serves(project)]
        stopped = [pid for k in found if (pid := stop(k.name)) is not None]
        pids = f" ({', '.join(str(pid) for pid in stopped)})" if stopped else ""
        count = plural(len(stopped), "model process", "model processes")
        print(f"caretaker: stopped {count}{pids}")
        return 0
    shown = found if everyone else [k for k in found if k.serves(project)]
    if not shown:
        _none(len(found))
        return 0
    print(f"{'PID':>8}  {'AGE':>7}  {'MEMORY':>8}  {'IDLE':>7}  SESSIONS  MODELS  ENVIRONMENT")
    for each in shown:
        print(
            f"{each.pid:>8}  {_seconds(each.age):>7}  {each.memory / 2**20:>6.0f}MB  "
            f"{_seconds(each.idle):>7}  {each.sessions:>8}  {', '.join(each.models) or '-'}  "
            f"{each.environment or '-'}"
            + (f"  ({', '.join(each.projects) or 'no project said'})" if everyone else "")
        )
    print("caretaker model stop" + (" --all" if everyone else "") + " ends them")
    return 0


def _none(others: int) -> None:
    """No kept process served this project: say so, and how many other projects' there are."""
    if not others:
        print("caretaker: no model process is kept (a session with a model keeps one)")
        return
    count = plural(others, "is kept for other projects", "are kept for other projects")
    print(f"caretaker: no model process is kept for this project ({count}: caretaker model --all)")


def names_listening(table: Path = Path("/proc/net/unix")) -> list[str]:
    """The names of this user's kept processes' listening sockets, in the order listed."""
    prefix = f"@{kept.PREFIX}{os.getuid()}-"
    names: list[str] = []
    try:
        lines = table.read_text().splitlines()[1:]
    except OSError:
        return names
    for line in lines:
        fields = line.split()
        if len(fields) < 8 or not fields[7].startswith(prefix):
            continue
        if int(fields[3], 16) & _LISTENING and fields[7][1:] not in names:
            names.append(fields[7][1:])
    return names


def status(name: str) -> Kept | None:
    """What the kept process listening on name says of itself; None if it is not this user's
    or does not answer."""
    greeted = kept.greet(name, {"status": True})
    if greeted is None:
        return None
    connection, answer = greeted
    connection.close()
    try:
        return Kept(
            name,
            int(answer["pid"]),
            float(answer["age"]),
            int(answer["memory"]),
            float(answer["idle"]),
            int(answer["sessions"]),
            tuple(str(model) for model in answer["models"]),
            tuple(str(project) for project in answer.get("projects", ())),
            str(answer.get("environment", "")),
        )
    except (KeyError, TypeError, ValueError):
        return None


def stop(name: str) -> int | None:
    """End the kept process listening on name; its pid, None if it is not this user's or did
    not answer."""
    greeted = kept.greet(name, {"stop": True})
    if greeted is None:
        return None
    connection, answer = greeted
    connection.close()
    stopped = answer.get("stopped")
    return stopped if isinstance(stopped, int) else None


def _seconds(value: float) -> str:
    return f"{value:.0f} s" if value < 120 else f"{value / 60:.0f} min"
