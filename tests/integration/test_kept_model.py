"""The kept model process (llm/kept.py): litellm imported once, the next session reaches it warm;
only its own user, in its own environment, can talk to it, and it does not stay beyond its time.

Each session is a fresh interpreter (litellm is imported in the test process, where caretaker
then asks in process). Every test names its kept process's socket (CARETAKER_MODEL_SOCKET) and
ends the processes it started; the tests that only ask or probe a kept process share one
(shared_env), ended when the module's tests are done.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.llm import kept, remote
from pytest_caretaker.verify.probe import unavailable
from pytest_caretaker.verify.runner import Confinement, Runner

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the model process is kept on Linux only"
)

MODEL = "openai/gpt-4o-mini"
SESSION = """\
import json, sys, time
from pytest_caretaker.llm import client, remote, warmup
from pytest_caretaker.testing import ScriptedServer, text
keep = float(sys.argv[1])
with ScriptedServer(responder=lambda body: text("hi")).start() as server:
    warmup.start([sys.argv[2]], keep)
    process = remote.running()
    reply = client.ask(sys.argv[2], [{"role": "user", "content": "x"}], server.base_url, False)
    link = process.link
    out = {"text": reply.text, "pid": link.pid if link else None,
           "started here": bool(link and link.process), "litellm here": "litellm" in sys.modules}
remote.stop()
print(json.dumps(out))
"""


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment of this test's own (so its own kept process), whose processes end with it."""
    environment = {**os.environ, "KEPT_MODEL_TEST": str(tmp_path)}
    environment[kept.SOCKET] = str(tmp_path)
    environment.pop("CARETAKER_MODEL_KEEP", None)
    yield environment
    end_all(environment)


@pytest.fixture(scope="module")
def shared_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Like env, for the tests that only need a kept process to be there, to ask it or probe it
    (shared_pid): each started its own, and its import of litellm (~5 s of CPU) was most of
    what the test cost. Made before any test's environment, it leaves out what
    _no_caretaker_env keeps out of every test's."""
    from pytest_caretaker.llm.models import PROVIDERS

    keys = {key for provider in PROVIDERS for key in provider.keys}
    folder = tmp_path_factory.mktemp("shared-kept")
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("CARETAKER_") and name not in keys
    }
    environment["KEPT_MODEL_TEST"] = str(folder)
    environment[kept.SOCKET] = str(folder)
    yield environment
    end_all(environment)


@pytest.fixture(scope="module")
def shared_pid(shared_env: dict[str, str]) -> int:
    """The pid of the kept process of shared_env, started by a first session. It stays 600 s,
    not 60: the tests that use it need not follow one another within a minute (a loaded
    machine, xdist's stealing); shared_env's teardown ends it."""
    pid: int = session(shared_env, 600)["pid"]
    return pid


def started(env: dict[str, str]) -> list[int]:
    """The pids of the live model processes serving the socket env names."""
    name = kept.address(env)
    pids = []
    for folder in Path("/proc").iterdir():
        if not folder.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if name.encode() in (folder / "cmdline").read_bytes() and alive(int(folder.name)):
                pids.append(int(folder.name))
    return pids


def session(env: dict[str, str], keep: float, cwd: Path | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", SESSION, str(keep), MODEL],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def holder(name: str) -> int:
    """The pid of the process listening on the abstract socket ``name``."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect("\0" + name)
        return kept.peer(connection)[0]


def end(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def end_all(environment: dict[str, str]) -> None:
    """End the kept process listening under environment's name and every one it started."""
    with contextlib.suppress(OSError):
        end(holder(kept.address(environment)))
    for pid in started(environment):
        end(pid)


def gone(pid: int, seconds: float = 10) -> None:
    """Wait until pid has ended, every thread of it: a killed process's leader shows as a zombie
    while its other threads may still hold its files (its abstract socket's name among them)."""
    deadline = time.monotonic() + seconds
    while (alive(pid) or _threads_left(pid)) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(pid) and not _threads_left(pid)


def _threads_left(pid: int) -> bool:
    try:
        tasks = [task.name for task in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return False
    return any(_state(int(task), pid) not in ("Z", "X") for task in tasks)


def released(name: str, seconds: float = 10) -> None:
    """Wait until no process holds the abstract socket name (binding it, then letting it go)."""
    deadline = time.monotonic() + seconds
    while True:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.bind("\0" + name)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
        time.sleep(0.01)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)


def _state(pid: int, group: int | None = None) -> str:
    """The state letter of pid (a thread of group, if given); Z once it cannot be read."""
    path = f"/proc/{pid}/stat" if group is None else f"/proc/{group}/task/{pid}/stat"
    try:
        return Path(path).read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def test_the_next_session_reaches_the_kept_model_process_and_imports_nothing(
    env: dict[str, str],
) -> None:
    first = session(env, 60)
    second = session(env, 60)

    assert first["text"] == second["text"] == "hi"
    assert first["litellm here"] is second["litellm here"] is False
    assert first["pid"] == second["pid"]  # one process imported litellm, for both sessions
    assert alive(second["pid"])  # both sessions ended; it stays for the next


def test_another_environment_retires_the_kept_process_and_keeps_its_own(
    env: dict[str, str],
) -> None:
    first = session(env, 60)
    other = session({**env, "KEPT_MODEL_TEST": env["KEPT_MODEL_TEST"] + "other"}, 60)

    assert other["text"] == "hi" and other["pid"] != first["pid"]  # its keys may differ
    gone(first["pid"])  # retired: at most one is kept
    assert started(env) == [other["pid"]]


RETIRE = """import os, sys
from pytest_caretaker.llm import kept
for number in range(int(sys.argv[1])):
    os.environ["HOME"] = f"/home/{number}"  # a session of another environment
    link = kept.reach(["openai/gpt-4o-mini"], 60)
    assert link is not None
    link.end()
print(link.pid)
"""


def test_fifty_sessions_of_fifty_homes_leave_at_most_one_kept_process(env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", RETIRE, "50"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    last = int(done.stdout.split()[-1])
    deadline = time.monotonic() + 20  # each retired one leaves once its session has gone
    while started(env) != [last] and time.monotonic() < deadline:
        time.sleep(0.1)

    assert started(env) == [last]


LEAVES = """import os, sys, time
from pytest_caretaker.llm import kept
os.environ["HOME"] = "/home/first"
kept.reach(["openai/gpt-4o-mini"], 60).end()
os.environ["HOME"] = "/home/second"  # its session retires the first, which has none left
link = kept.reach(["openai/gpt-4o-mini"], 60)
retired = time.monotonic()
kept._STARTED[0].wait(30)
print(time.monotonic() - retired)
link.end()
"""


def test_a_retired_process_with_no_session_leaves_at_once(env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LEAVES], env=env, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr[-3000:]
    # Not at its clock's next look (it looked every 5 s), importing litellm for nobody till then.
    assert float(done.stdout.split()[-1]) < 2.0


def test_caretaker_model_lists_the_kept_process_and_stops_it(env: dict[str, str]) -> None:
    pid = session(env, 60)["pid"]
    caretaker = [sys.executable, "-m", "pytest_caretaker", "model"]
    listed = subprocess.run(caretaker, env=env, capture_output=True, text=True, timeout=60)
    stopped = subprocess.run(
        [*caretaker, "stop", str(pid)], env=env, capture_output=True, text=True, timeout=60
    )

    assert listed.returncode == 0 and stopped.returncode == 0, listed.stderr + stopped.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["PID", "AGE", "MEMORY", "IDLE", "SESSIONS", "MODELS", "ENVIRONMENT"]
    (row,) = [row for row in rows if row.split()[0] == str(pid)]
    # no session connected now; it runs from the environment litellm is in (the suite's)
    assert row.split()[-2:] == [MODEL, sys.prefix] and row.split()[-3] == "0"
    assert stopped.stdout == f"caretaker: stopped 1 model process ({pid})\n"
    gone(pid)


def test_caretaker_model_shows_and_stops_only_this_projects_processes(
    env: dict[str, str], tmp_path: Path
) -> None:
    # Two projects, each with a kept process of its own (another interpreter, say: here another
    # socket); `caretaker model` in the first shows and stops its own only, unless asked --all.
    first, second = tmp_path / "first", tmp_path / "second"
    for project in (first, second):
        (project / "tests").mkdir(parents=True)
        (project / "pyproject.toml").write_text("")
    other = {**env, kept.SOCKET: str(second)}
    try:
        mine = session(env, 60, cwd=first)["pid"]
        theirs = session(other, 60, cwd=second)["pid"]
        caretaker = [sys.executable, "-m", "pytest_caretaker", "model"]

        def run(*args: str) -> str:
            done = subprocess.run(
                [*caretaker, *args],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                cwd=first / "tests",
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

        listed = [row.split()[0] for row in run().splitlines()[1:-1]]
        everyone = run("--all")
        assert listed == [str(mine)]
        assert f"{theirs} " in everyone and str(second) in everyone
        assert run("stop") == f"caretaker: stopped 1 model process ({mine})\n"
        gone(mine)
        assert alive(theirs)
    finally:
        for pid in started(other):
            end(pid)


def test_with_keep_0_the_model_process_ends_with_the_session(env: dict[str, str]) -> None:
    seen = session(env, 0)

    assert seen["text"] == "hi" and seen["started here"] is True
    assert not alive(seen["pid"])


def test_with_no_session_the_kept_process_leaves_after_its_time(env: dict[str, str]) -> None:
    seen = session(env, 1)
    deadline = time.monotonic() + 15
    while alive(seen["pid"]) and time.monotonic() < deadline:
        time.sleep(0.1)

    assert seen["text"] == "hi"
    assert not alive(seen["pid"])


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to act as another user")
def test_another_user_gets_no_answer_and_is_never_asked(env: dict[str, str]) -> None:
    pid = session(env, 60)["pid"]
    name = kept.address(remote.environment(env))
    request = json.dumps({"id": 1, "op": "info", "args": {"model": MODEL, "local": False}})
    # As nobody: connect to the user's model process and ask it (it would spend the user's keys).
    attacker = (
        "import os, socket, sys\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "s.connect('\\0' + sys.argv[1])\n"
        "s.settimeout(10)\n"
        "try:\n"  # closed at once: the request may not even get out
        "    s.sendall(sys.argv[2].encode() + b'\\n')\n"
        "    print(repr(s.makefile('rb').read()))\n"
        "except (BrokenPipeError, ConnectionResetError):\n"
        "    print('reset')\n"
    )
    answered = subprocess.run(
        [sys.executable, "-c", attacker, name, request], capture_output=True, text=True, timeout=30
    )
    end(pid)
    gone(pid)  # SIGKILL is asynchronous: the name is free only once the process has ended
    released(name)  # and once the kernel has closed its socket (machine-wide: checked, not assumed)
    # Nobody holds the name first: the user's session must not talk to it; it starts a model
    # process of its own instead, as with keep 0.
    squatter = subprocess.Popen(
        [sys.executable, "-c", _SQUAT, name], stdout=subprocess.PIPE, text=True
    )
    try:
        assert squatter.stdout is not None and squatter.stdout.readline() == "listening\n"
        seen = session(env, 60)
    finally:
        squatter.kill()
        squatter.wait()
    assert squatter.stdout is not None
    heard = squatter.stdout.read()

    assert answered.returncode == 0, answered.stderr[-2000:]
    assert answered.stdout.strip() in ("b''", "reset")  # closed at once, no answer
    assert heard == ""  # not one byte of the session's requests
    assert seen["text"] == "hi" and seen["started here"] is True and seen["litellm here"] is False


_SQUAT = """\
import os, socket, sys, time
os.setgid(65534); os.setuid(65534)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\\0" + sys.argv[1])
s.listen()
print("listening", flush=True)
while True:
    connection, _ = s.accept()
    data = connection.recv(100000)
    if data:
        print(repr(data), flush=True)
"""


ASKS = """\
import json, os, socket


def test_ask_the_users_model_process():
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect("\\0" + os.environ["KEPT_MODEL_NAME"])
    connection.settimeout(20)
    connection.sendall(json.dumps({"hello": os.environ["KEPT_MODEL_STAMP"]}).encode() + b"\\n")
    request = {"id": 7, "op": "info", "args": {"model": "openai/gpt-4o-mini", "local": False}}
    connection.sendall(json.dumps(request).encode() + b"\\n")
    for line in connection.makefile("r"):
        if '"id"' in line:
            assert "info" in json.loads(line)
            return
    raise AssertionError("no answer")
"""


@pytest.mark.skipif(unavailable(True) is not None, reason=f"no sandbox: {unavailable(True)}")
@pytest.mark.parametrize("confined", [True, False], ids=["sandboxed", "unconfined"])
def test_a_candidate_allowed_the_network_cannot_ask_the_model_process(
    shared_env: dict[str, str],
    shared_pid: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    confined: bool,
) -> None:
    # With --heal-sandbox-network the candidate shares the network namespace, so it reaches the
    # socket; mapped to the user's very uid, only its user namespace tells it apart.
    assert alive(shared_pid)
    env = shared_env
    monkeypatch.setenv("KEPT_MODEL_NAME", kept.address(remote.environment(env)))
    monkeypatch.setenv("KEPT_MODEL_STAMP", kept.stamp(remote.environment(env)))
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_asks.py").write_text(ASKS)
    args = ["-q", "-p", "no:cacheprovider", "--rootdir", str(project)]
    confinement = Confinement(True) if confined else None
    with Runner(project, project, args, 30, warm=False, confinement=confinement) as runner:
        result = runner.run(["test_asks.py"])

    outcome = result.outcomes["test_asks.py::test_ask_the_users_model_process"].outcome
    assert outcome == ("failed" if confined else "passed"), result.output[-2000:]


def test_a_process_in_a_user_namespace_of_its_own_gets_no_answer(
    shared_env: dict[str, str], shared_pid: int
) -> None:
    # What a sandboxed candidate allowed the network is where the kernel does not scope abstract
    # sockets (Landlock before ABI 6): the user's very uid, in a user namespace of its own.
    assert alive(shared_pid)
    env = shared_env
    name = kept.address(remote.environment(env))
    stamp = kept.stamp(remote.environment(env))
    asker = (
        "import ctypes, json, os, socket, sys\n"
        "if sys.argv[2] == 'own namespace':\n"
        "    assert ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0\n"
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "s.connect('\\0' + sys.argv[1])\n"
        "s.settimeout(20)\n"
        "request = {'id': 1, 'op': 'info', 'args': {'model': sys.argv[3], 'local': False}}\n"
        "try:\n"  # closed at once: the request may not even get out
        "    s.sendall(json.dumps({'hello': sys.argv[4]}).encode() + b'\\n')\n"
        "    s.sendall(json.dumps(request).encode() + b'\\n')\n"
        "    print(next((line for line in s.makefile('r') if '\"id\"' in line), 'none'))\n"
        "except (BrokenPipeError, ConnectionResetError, TimeoutError):\n"
        "    print('no answer')\n"
    )
    seen = {}
    for where in ("own namespace", "user's namespace"):
        done = subprocess.run(
            [sys.executable, "-c", asker, name, where, MODEL, stamp],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        seen[where] = done.stdout.strip()

    assert seen["own namespace"] in ("none", "no answer")
    assert '"info"' in seen["user's namespace"]


def test_a_connection_that_says_nothing_changes_nothing(
    shared_env: dict[str, str], shared_pid: int
) -> None:
    env = shared_env
    first = session(env, 60)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:  # connects, says nothing
        probe.connect("\0" + kept.address(env))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as garbled:
        garbled.connect("\0" + kept.address(env))
        garbled.sendall(b'{"hello": 7}\n')
    second = session(env, 60)

    assert first["pid"] == second["pid"] == shared_pid  # neither made it retire
