"""Whether the sandbox works here, tried for real in a throwaway process before a session relies
on it: ``unavailable()`` is None, or the reason in one line (the header shows it), and
``confines()`` says in a few words what confines candidates here, parts the kernel refused
included.

Run as ``python -m pytest_caretaker.verify.probe SCRATCH network|closed``, this module confines
itself as a run is confined, checks that a write and a read outside its folder fail and that it
sees no path of the machine outside its view, then prints ``ok`` and the parts it lacks.

The probe's process costs ~0.1 s of CPU, more than everything else a ``--heal`` session that has
nothing to heal does; so a success is remembered for the boot (``remembered``), in the user's
runtime folder (or a private one in the temporary folder), keyed by the boot, the namespaces
this process is in, the user, the interpreter and the sandbox's code. A failure is never
remembered: it is tried again next time. (Each run is confined for real all the same: the probe
only says beforehand whether it can be.)
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pytest_caretaker.verify import landlock


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
    key = _key(network)
    known = remembered(key)
    if known is not None:
        return None, known
    reason, missing = _run(network, timeout)
    if reason is None:
        remember(key, missing)
    return reason, missing


def _run(network: bool, timeout: float) -> tuple[str | None, tuple[str, ...]]:
    """The probe's process, run: why the sandbox cannot be had (None: it can), what it lacks."""
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


def _cache() -> Path | None:
    """The file of remembered successes: in the user's runtime folder (a tmpfs that ends with
    the boot), else a folder of the temporary one that is the user's alone; None if neither."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    base = Path(runtime) if runtime and os.path.isdir(runtime) else Path(tempfile.gettempdir())
    folder = base / f"pytest-caretaker-{os.geteuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        stat = folder.lstat()
    except OSError:
        return None
    if not os.path.isdir(folder) or os.path.islink(folder):
        return None
    if stat.st_uid != os.geteuid() or stat.st_mode & 0o077:
        return None  # somebody else's, or open to others: what it says is not to be trusted
    return folder / "sandbox-probe.json"


def _key(network: bool) -> str:
    """What a remembered success holds for: this boot, these namespaces, user and interpreter,
    and the sandbox's code as it is."""
    parts: list[object] = [network, os.geteuid(), sys.executable, sys.version]
    with contextlib.suppress(OSError):
        parts.append(Path("/proc/sys/kernel/random/boot_id").read_text().strip())
        parts += [os.readlink(f"/proc/self/ns/{space}") for space in ("user", "mnt", "pid")]
    for module in ("probe", "sandbox", "view", "landlock", "pids"):
        with contextlib.suppress(OSError):
            stat = (Path(__file__).parent / f"{module}.py").stat()
            parts += [module, stat.st_mtime_ns, stat.st_size]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def remembered(key: str) -> tuple[str, ...] | None:
    """The parts of the view a success under key lacked; None when none is remembered."""
    path = _cache()
    try:
        known = json.loads(path.read_text(encoding="utf-8")).get(key) if path else None
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(known, list) and all(isinstance(part, str) for part in known):
        return tuple(known)
    return None


def remember(key: str, missing: tuple[str, ...]) -> None:
    """Remember a success (with the last few others: the file never grows); nothing when it
    cannot."""
    path = _cache()
    if path is None:
        return
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    kept = dict(list(known.items())[-7:]) if isinstance(known, dict) else {}
    kept.pop(key, None)
    kept[key] = list(missing)
    with contextlib.suppress(OSError):
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps(kept), encoding="utf-8")
        os.replace(temporary, path)


def _probe(scratch: str, network: bool, unseen: str) -> str:
    """In the probe process: confine as a run is confined, then check that it holds."""
    # Here, not at the top: a session whose success is remembered never needs the sandbox.
    from pytest_caretaker.verify.policy import for_project
    from pytest_caretaker.verify.sandbox import confine_run, enter, restrict

    outside = Path(scratch) / "outside"
    outside.mkdir()
    (outside / "secret").write_text("no")
    inside = Path(scratch) / "inside"
    inside.mkdir()
    rules = for_project(Path(scratch), inside, network)
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
