"""Whether the sandbox works here, tried for real in a throwaway process before a session relies
on it: ``unavailable()`` is None, or the reason in one line (the header shows it).

Run as ``python -m pytest_caretaker.verify.probe SCRATCH network|closed``, this module confines
itself as a run is confined and checks that a write and a read outside its folder fail.
"""

from __future__ import annotations

import contextlib
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
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux, this is {sys.platform}"
    if landlock.abi() < 1:
        return "this kernel has no Landlock (Linux 5.13 or later, with Landlock enabled)"
    with tempfile.TemporaryDirectory(prefix="caretaker-probe-") as scratch:
        command = [
            sys.executable,
            "-m",
            "pytest_caretaker.verify.probe",
            scratch,
            "network" if network else "closed",
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"the sandbox probe failed: {error}"
    if done.returncode == 0 and done.stdout.strip() == "ok":
        return None
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[-1] if lines else f"the sandbox probe exited with {done.returncode}"


def _probe(scratch: str, network: bool) -> str:
    """In the probe process: confine as a run is confined, then check that it holds."""
    outside = Path(scratch) / "outside"
    outside.mkdir()
    (outside / "secret").write_text("no")
    inside = Path(scratch) / "inside"
    inside.mkdir()
    rules = policy(Path(scratch), inside, network)
    rules["hidden"].append(str(outside))
    enter(network)
    restrict(rules, [str(inside)])
    confine_run(rules, str(inside), 1 << 30)
    (inside / "written").write_text("ok")
    escape = Path(scratch) / "escaped"
    for attempt in (lambda: escape.write_text("no"), (outside / "secret").read_text):
        with contextlib.suppress(PermissionError):
            attempt()
            return "the sandbox did not stop a write or a read outside its folder"
    if not network and [name for _, name in socket.if_nameindex()] != ["lo"]:
        return "the sandbox's network namespace has interfaces besides lo"
    return "ok"


def main(argv: Sequence[str]) -> int:
    try:
        print(_probe(argv[0], argv[1] == "network"), flush=True)
    except OSError as error:
        print(f"{error.strerror or error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
