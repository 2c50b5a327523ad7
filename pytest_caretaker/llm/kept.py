"""The kept model process: litellm imported once, for this session and the ones that follow.

Importing litellm and making its first request ready takes seconds (4 here), longer than
everything else one heal costs at zero model latency. So on Linux, outside CI, the model process
(remote.py, serve.py) outlives the session that started it by ``seconds`` (600 by default;
``--heal-model-keep``/``CARETAKER_MODEL_KEEP``, 0: it ends with the session), and the next
session, ``caretaker run`` or runtime heal reaches it warm: a heal then costs the model's round
trip and the tests.

There is at most one per user and interpreter: it listens on an abstract Unix socket named by
the user and the interpreter (``CARETAKER_MODEL_SOCKET`` names another, for a setup of its own).
A session first says what it needs the process to share with it, caretaker's and litellm's code
and the environment (API keys, proxies): its ``stamp``. A process with another stamp retires
(it stops listening at once, ends the requests of the sessions it serves, then leaves) and the
session starts its own under the name. So sessions of one environment share one process, and a
session of another replaces it rather than adding one. A process that grows past ``MEMORY_CAP``
retires too. Each one keeps the project folders of the sessions it served: ``caretaker model``
lists those of the project it runs in (keeping.py), ``caretaker model stop`` ends them.

Who may talk to it:

- only processes of the same user outside any sandbox (each side checks the other's uid and
  user namespace: ``trusted``);
- only from the same network namespace (abstract sockets live in one): candidate code in the
  sandbox has a namespace of its own and cannot reach it, nor spend the user's keys through
  it; allowed the network (--heal-sandbox-network), it is still in a user namespace of its own.

Its name being taken (two sessions starting one at once) is harmless: one binds it, the other
leaves at once, and both sessions talk to the first. Taken by someone untrusted, it is not
reached at all (warmup.py then starts the session's own process). Standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_caretaker import own
from pytest_caretaker.llm import remote

#: Seconds a session's model process stays for the next one, where it can (see ``seconds``).
DEFAULT_KEEP = 600.0
#: Seconds a newly started kept process may take to listen (an interpreter start).
LISTENING = 10.0
#: Bytes of memory past which a kept process retires after its answer (litellm takes ~200 MB).
MEMORY_CAP = 1 << 30
#: The variable that names the kept process's socket of a setup of its own (tests: one each).
SOCKET = "CARETAKER_MODEL_SOCKET"
#: Seconds a session waits for the kept process's answer to its first line.
GREETING = 10.0
_STARTED: list[subprocess.Popen[bytes]] = []


def seconds(keep: float | None) -> float:
    """How long the model process stays after the session: as configured (settings make it 0
    in CI, where one session runs per job), else DEFAULT_KEEP; 0 where there are no abstract
    Unix sockets (anything but Linux)."""
    if not sys.platform.startswith("linux"):
        return 0.0
    return DEFAULT_KEEP if keep is None else keep


def reach(models: Sequence[str], keep: float, project: str = "") -> remote.Link | None:
    """A link to the kept model process for this environment, started if none listens;
    project: the session's project folder (``caretaker model`` shows a project's own)."""
    env = remote.environment()
    name, mine = address(env), stamp(env)
    connection = _connect(name, mine, project)
    started = 0
    if connection is None:
        process = own.Popen(  # in a thread, maybe while a test patches Popen
            [
                remote.interpreter(env),
                "-I",
                "-c",
                remote.CODE,
                remote.HOME,
                f"{remote.IDLE:g}",
                f"{name}@{keep:g}@{mine}",
                *models,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd="/",  # it outlives the session: it holds no project folder
            start_new_session=True,  # nor gets the terminal's Ctrl-C meant for the session
        )
        _STARTED.append(process)  # dropped while it runs, a Popen warns: it outlives us by design
        started = process.pid
        deadline = time.monotonic() + LISTENING
        while connection is None and time.monotonic() < deadline:
            time.sleep(0.01)
            connection = _connect(name, mine, project)
            if connection is None and process.poll() is not None:
                # it left: another took the name, or it failed
                connection = _connect(name, mine, project)
                break
    if connection is None:
        return None
    reader = connection.makefile("r", encoding="utf-8")
    writer = connection.makefile("w", encoding="utf-8")

    def end() -> None:
        with contextlib.suppress(OSError):
            connection.shutdown(socket.SHUT_RDWR)
        for stream in (reader, writer, connection):
            with contextlib.suppress(OSError):
                stream.close()

    pid = peer(connection)[0]
    return remote.Link(reader, writer, end, pid, kept=keep if pid == started else 0.0)


def address(env: Mapping[str, str]) -> str:
    """The kept process's name: the user's and the interpreter's (see the module's doc)."""
    prefix = f"{PREFIX}{os.getuid()}-"
    given = env.get(SOCKET)
    if given:
        return prefix + hashlib.sha256(given.encode()).hexdigest()[:24]
    interpreter = [remote.interpreter(env), sys.version, remote.HOME]
    return prefix + hashlib.sha256(json.dumps(interpreter).encode()).hexdigest()[:24]


def stamp(env: Mapping[str, str]) -> str:
    """What a kept process must share with the session it serves: caretaker's and litellm's
    code, and the environment (keys, proxies: they are read in the process)."""
    from pytest_caretaker.llm import extra

    located = extra.where(env)
    litellm = importlib.util.find_spec("litellm") if located and not located.identity else None
    origin = Path(litellm.origin) if litellm is not None and litellm.origin else None
    code = sorted(Path(__file__).parents[1].rglob("*.py"))
    stamp: list[object] = [sorted(env.items())]
    stamp += [[str(path), path.stat().st_mtime_ns, path.stat().st_size] for path in code]
    if origin is not None:  # litellm of the test environment
        stamp += [str(origin), origin.stat().st_mtime_ns]
    if located is not None and located.identity:  # caretaker's model environment, as set up
        stamp += [located.identity]
    return hashlib.sha256(json.dumps(stamp).encode()).hexdigest()[:32]


#: The start of every kept process's socket name (then the uid, and the name's digest).
PREFIX = "caretaker-models-"


def peer(connection: socket.socket) -> tuple[int, int]:
    """The (pid, uid) of the process at the other end of a Unix socket."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    pid, uid, _gid = struct.unpack("3i", credentials)
    return pid, uid


def trusted(connection: socket.socket) -> bool:
    """Whether the other end is this user's, outside any sandbox: the same uid, in the same user
    namespace (a sandboxed candidate allowed the network has a namespace of its own, mapped to
    this very uid: it must not spend the keys its environment was denied)."""
    try:
        pid, uid = peer(connection)
        return uid == os.getuid() and _namespace(pid) == _namespace(os.getpid())
    except OSError:
        return False  # gone already, or not to be looked at: not trusted


def _namespace(pid: int) -> str:
    return os.readlink(f"/proc/{pid}/ns/user")


def _connect(name: str, mine: str, project: str) -> socket.socket | None:
    """A connection to the kept process that serves sessions of stamp ``mine``; None when none
    listens, someone else holds the name, or the one there had another stamp (it retired: the
    name is free for this session's own)."""
    greeted = greet(name, {"hello": mine, "project": project})
    if greeted is None:
        return None
    connection, answer = greeted
    if answer.get("welcome") is True:
        return connection
    connection.close()
    return None


def greet(name: str, message: dict[str, object]) -> tuple[socket.socket, dict[str, Any]] | None:
    """Connect to the kept process ``name`` (if it is this user's) and send its first line;
    the connection and the answer's line, None when there is nobody to talk to."""
    connection = own.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # a test may patch socket
    try:
        connection.connect("\0" + name)
        if not trusted(connection):  # someone else holds the name: never talk to it
            raise OSError("not ours")
        connection.settimeout(GREETING)
        connection.sendall(json.dumps(message).encode() + b"\n")
        answer = json.loads(read_line(connection) or "{}")
        connection.settimeout(None)
    except (OSError, ValueError):
        connection.close()
        return None
    return connection, answer if isinstance(answer, dict) else {}


def read_line(connection: socket.socket, limit: int = 65_536) -> str:
    """One line from connection, read a byte at a time (what follows it stays in the socket
    for the streams made of it later)."""
    line = bytearray()
    while len(line) < limit:
        byte = connection.recv(1)
        if not byte or byte == b"\n":
            break
        line += byte
    return line.decode("utf-8", "replace")
