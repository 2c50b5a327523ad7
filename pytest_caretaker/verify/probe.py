"""Whether the sandbox works here, tried for real in a throwaway process before a session relies
on it: ``unavailable()`` is None, or the reason in one line (the header shows it), and
``confines()`` says in a few words what confines candidates here, parts the kernel refused
included.

Run as ``python -m pytest_caretaker.verify.probe SCRATCH network|closed``, this module confines
itself as a run is confined, checks that a write and a read outside its folder fail and that it
sees no path of the machine outside its view, then prints ``ok`` and the parts it lacks.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pytest_caretaker.verify import landlock
from pytest_caretaker.verify.sandbox import confine_run, enter, policy, restrict


def unavailable(network: bool, timeout: float = 20.0) -> str | None:
    """Why candidate code cannot run sandboxed here, or None when it can (tried for real)."""
    return _check(network, timeout)[0]


def confines(network: bool) -> str:
    """What confines candidates here, in a few words (the session's header)."""
    reason, missing = _check(network, 20.0)
    if reason is not None:
        return f"unsandboxed: {reason}"
    spaces = "user, pid, mount, IPC" + ("" if network else ", network")
    lacking = f"; no {', no '.join(missing)}" if missing else ""
    return f"{spaces} namespaces, Landlock ABI {landlock.abi()}, an allow-listed view{lacking}"


@functools.lru_cache(maxsize=4)
def _check(network: bool, timeout: float) -> tuple[str | None, tuple[str, ...]]:
    """Why the sandbox cannot be had here (None: it can), and the parts of the view it lacks."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux, this is {sys.platform}", ()
    if landlock.abi() < 1:
        return "this kernel has no Landlock (Linux 5.13 or later, with Landlock enabled)", ()
    with (
        tempfile.TemporaryDirectory(prefix="caretaker-probe-") as scratch,
        tempfile.TemporaryDirectory(prefix="caretaker-probe-unseen-") as unseen,
    ):
        command = [
            sys.executable,
            "-m",
            "pytest_caretaker.verify.probe",
            scratch,
            "network" if network else "closed",
            unseen,
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"the sandbox probe failed: {error}", ()
    said = done.stdout.strip()
    if done.returncode == 0 and (said == "ok" or said.startswith("ok without ")):
        return None, tuple(
            filter(None, said.removeprefix("ok").removeprefix(" without ").split(", "))
        )
    lines = (done.stderr or done.stdout).strip().splitlines()
    return (lines[-1] if lines else f"the sandbox probe exited with {done.returncode}"), ()


def _probe(scratch: str, network: bool, unseen: str) -> str:
    """In the probe process: confine as a run is confined, then check that it holds."""
    outside = Path(scratch) / "outside"
    outside.mkdir()
    (outside / "secret").write_text("no")
    inside = Path(scratch) / "inside"
    inside.mkdir()
    rules = policy(Path(scratch), inside, network)
    rules["hidden"].append(str(outside))
    missing = enter(rules)
    restrict(rules, [str(inside)])
    confine_run(rules, str(inside), 1 << 30)
    (inside / "written").write_text("ok")
    escape = Path(scratch) / "escaped"
    for attempt in (lambda: escape.write_text("no"), (outside / "secret").read_text):
        with contextlib.suppress(OSError):  # denied, or read-only: stopped either way
            attempt()
            return "the sandbox did not stop a write or a read outside its folder"
    if not network and [name for _, name in socket.if_nameindex()] != ["lo"]:
        return "the sandbox's network namespace has interfaces besides lo"
    if os.path.lexists(unseen):
        return f"the sandbox's view shows a folder of the machine's /tmp: {unseen}"
    return "ok" + (f" without {', '.join(missing)}" if missing else "")


def main(argv: Sequence[str]) -> int:
    try:
        print(_probe(argv[0], argv[1] == "network", argv[2]), flush=True)
    except OSError as error:
        print(f"{error.strerror or error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
