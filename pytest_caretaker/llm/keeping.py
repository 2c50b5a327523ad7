"""``caretaker model``: list this user's kept model processes (kept.py), and ``caretaker model
stop`` ends them. They are found by their listening sockets' names in /proc/net/unix and asked
over the socket itself (only this user's, outside any sandbox, answer). Standard library only.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from pytest_caretaker.llm import kept
from pytest_caretaker.text import plural

#: Flag of a listening socket in /proc/net/unix (__SO_ACCEPTCON).
_LISTENING = 0x10000


@dataclass(frozen=True)
class Kept:
    """A kept model process as it describes itself."""

    pid: int
    age: float  # seconds since it started
    memory: int  # resident bytes
    idle: float  # seconds since its last request or session
    sessions: int
    models: tuple[str, ...]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    stop = actions.add_parser(
        "stop",
        help="End your kept model processes (all of them, or the PIDs given)",
        description="End your kept model processes, all of them or the PIDs given (a session "
        "using one asks in a process of its own from then on)",
    )
    stop.add_argument("pids", nargs="*", type=int, metavar="PID", help="Only these processes")


def model_command(args: argparse.Namespace) -> int:
    if not sys.platform.startswith("linux"):
        print("caretaker: model processes are kept on Linux only; none is kept here")
        return 0
    names = names_listening()
    if getattr(args, "action", None) == "stop":
        if args.pids:  # only the processes named
            names = [name for name in names if (k := status(name)) and k.pid in args.pids]
        stopped = [pid for name in names if (pid := stop(name)) is not None]
        pids = f" ({', '.join(str(pid) for pid in stopped)})" if stopped else ""
        count = plural(len(stopped), "model process", "model processes")
        print(f"caretaker: stopped {count}{pids}")
        return 0
    found = [k for name in names if (k := status(name)) is not None]
    if not found:
        print("caretaker: no model process is kept (a session with a model keeps one)")
        return 0
    print(f"{'PID':>8}  {'AGE':>7}  {'MEMORY':>8}  {'IDLE':>7}  SESSIONS  MODELS")
    for each in found:
        print(
            f"{each.pid:>8}  {_seconds(each.age):>7}  {each.memory / 2**20:>6.0f}MB  "
            f"{_seconds(each.idle):>7}  {each.sessions:>8}  {', '.join(each.models) or '-'}"
        )
    print("caretaker model stop ends them")
    return 0


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
            int(answer["pid"]),
            float(answer["age"]),
            int(answer["memory"]),
            float(answer["idle"]),
            int(answer["sessions"]),
            tuple(str(model) for model in answer["models"]),
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
