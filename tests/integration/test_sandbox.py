"""The sandbox through the real Runner: each test below is a small attack or a thing tests must
still be able to do, run in a confined warm server and in a fresh confined process, and compared
with the same run unconfined (where each attack works, so the test can fail)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_caretaker.verify.probe import unavailable
from pytest_caretaker.verify.runner import Confinement, Runner

pytestmark = pytest.mark.skipif(
    unavailable(False) is not None, reason=f"no sandbox here: {unavailable(False)}"
)

PROBES = """\
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).parent
HOME = Path(os.environ["HOME"])


def test_write_a_project_file():
    (ROOT / "planted.txt").write_text("x")


def test_read_the_repository():
    # A project may read its version or its remote from git at import: the repository reads.
    assert (ROOT / ".git" / "HEAD").read_text() == "ref: refs/heads/main\\n"
    assert "https://example.com/project.git" in (ROOT / ".git" / "config").read_text()


def test_read_the_token_in_the_repositorys_config():
    # Its config reads as a copy without credentials (record/gitdirs.py).
    config = (ROOT / ".git" / "config").read_text()
    assert "ghp_" in config or "Zm9vOmJhcg" in config or "smtp-Pa55" in config


def test_read_the_token_in_the_repositorys_reflog():
    # A pull's command line, kept in the reflog: the reflogs cannot be read.
    assert "ghp_" in (ROOT / ".git" / "logs" / "HEAD").read_text()


def test_read_the_projects_dotenv():
    # The name is computed, as a candidate's would be: a project file that names the file reads it,
    # and the sandbox leaves a file the project reads readable (record/dotenvs.py).
    assert "SMTP_PASS=" in (ROOT / ("." + "env")).read_text()  # an empty file in the sandbox


def test_read_a_key_in_home():
    assert (HOME / ".ssh" / "id_rsa").read_text()


def test_write_home():
    (HOME / ".bashrc").write_text("evil")


def test_see_a_secret_of_the_environment():
    assert os.environ["SERVICE_TOKEN"] == "tok-123456"


def test_reach_a_listener_outside():
    socket.create_connection(("127.0.0.1", int(os.environ["LISTENER_PORT"])), 2).close()


def test_reach_the_kept_model_process():
    # It listens on an abstract Unix socket (llm/kept.py), which only its network namespace sees.
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect("\\0" + os.environ["MODEL_SOCKET"])
    connection.close()


def test_reach_a_user_socket():
    # A socket file of the user's, as tmux's, screen's, an agent's or docker's is.
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(os.environ["USER_SOCKET"])
    connection.sendall(b"x")
    connection.close()


def test_reach_a_socket_in_home():
    # Where git's credential cache daemon listens.
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(str(HOME / ".cache" / "git" / "credential" / "socket"))
    connection.sendall(b"x")
    connection.close()


def test_leave_a_process_behind():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", os.environ["MARKER"]],
                     start_new_session=True)
    time.sleep(0.2)


def test_tmp_path_and_temp_files_work(tmp_path):
    import tempfile

    (tmp_path / "f").write_text("ok")
    with tempfile.NamedTemporaryFile() as handle:
        handle.write(b"ok")
    assert (tmp_path / "f").read_text() == "ok"


def test_a_server_on_loopback_works():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    threading.Thread(target=lambda: server.accept()[0].sendall(b"hi"), daemon=True).start()
    with socket.create_connection(("127.0.0.1", port), 2) as client:
        assert client.recv(2) == b"hi"


def test_read_the_project():
    assert "def test_read_the_project" in Path(__file__).read_text()


# Last: its children keep the cap full for a second.
def test_start_over_a_thousand_processes():
    for _ in range(1100):
        if os.fork() == 0:
            time.sleep(1)
            os._exit(0)
"""
ATTACKS = [
    "test_reach_a_user_socket",
    "test_reach_a_socket_in_home",
    "test_write_a_project_file",
    "test_read_the_token_in_the_repositorys_config",
    "test_read_the_token_in_the_repositorys_reflog",
    "test_read_a_key_in_home",
    "test_read_the_projects_dotenv",
    "test_write_home",
    "test_see_a_secret_of_the_environment",
    "test_reach_a_listener_outside",
    "test_reach_the_kept_model_process",
    "test_start_over_a_thousand_processes",
]
ALLOWED = [
    "test_tmp_path_and_temp_files_work",
    "test_a_server_on_loopback_works",
    "test_read_the_repository",
]
#: A repository's config with a token in a remote's URL, an extra header and a secret key.
GIT_CONFIG = """\
[core]
\tbare = false
[remote "origin"]
\turl = https://me:ghp_Rk3vQ9xT2mL8wZ5nB7cD1fG4hJ6kP0sA@example.com/project.git
[http "https://example.com/"]
\textraheader = AUTHORIZATION: basic Zm9vOmJhcg==
[sendemail]
\tsmtpPass = smtp-Pa55-77
"""


@pytest.fixture
def project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, Path, list[bytes]]]:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git" / "config").write_text(GIT_CONFIG)
    (root / ".git" / "logs").mkdir()
    (root / ".git" / "logs" / "HEAD").write_text(
        f"{'0' * 40} {'1' * 40} me <me@x> 1700000000 +0000\t"
        "pull https://me:ghp_Rk3vQ9xT2mL8wZ5nB7cD1fG4hJ6kP0sA@example.com/project.git: "
        "Fast-forward\n"
    )
    (root / "test_probes.py").write_text(PROBES)
    (root / ".env").write_text("SMTP_PASS=Sm7p-relay-Key-8842\n")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key")
    (home / ".bashrc").write_text("mine")
    received: list[bytes] = []
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def accept(listener: socket.socket) -> None:
        while not stop.is_set():
            try:
                received.append(listener.accept()[0].recv(10) or b"connected")
            except OSError:
                continue

    listeners = [listener]
    for path in (tmp_path / "run" / "user.sock", home / ".cache/git/credential/socket"):
        path.parent.mkdir(parents=True, exist_ok=True)
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(str(path))
        unix.listen()
        unix.settimeout(0.2)
        listeners.append(unix)
    monkeypatch.setenv("USER_SOCKET", str(tmp_path / "run" / "user.sock"))
    model_socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = f"caretaker-models-test-{uuid.uuid4().hex}"  # abstract names are machine-wide
    model_socket.bind("\0" + name)
    model_socket.listen()
    monkeypatch.setenv("MODEL_SOCKET", name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SERVICE_TOKEN", "tok-123456")
    monkeypatch.setenv("LISTENER_PORT", str(listener.getsockname()[1]))
    # The process left behind lives until the test ends it, not for a time a loaded machine's run
    # may outlast (30 s did, and the unconfined run found none left); unique to this run, as
    # /proc is the machine's.
    marker = f"caretaker-sandbox-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("MARKER", marker)
    threads = [threading.Thread(target=accept, args=(one,), daemon=True) for one in listeners]
    for thread in threads:
        thread.start()
    yield root, home, received
    for pid in marked(marker):  # left by an attack that got through
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    stop.set()
    for thread in threads:
        thread.join()
    for one in listeners:
        one.close()
    model_socket.close()


def marked(marker: str) -> list[str]:
    return [
        entry.name
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and _cmdline(entry).find(marker.encode()) >= 0
    ]


def _cmdline(entry: Path) -> bytes:
    try:
        return (entry / "cmdline").read_bytes()
    except OSError:
        return b""


def run(
    root: Path, confinement: Confinement | None, warm: bool, tests: str = "test_probes.py"
) -> dict[str, str]:
    args = ["-q", "-p", "no:cacheprovider", "--rootdir", str(root)]
    # The run forks over a thousand processes: on a loaded 2-core machine that takes a while.
    with Runner(root, root, args, 90, warm=warm, confinement=confinement) as runner:
        result = runner.run([tests])
    assert result.problem is None, result.output[-2000:]
    return {nodeid.split("::")[1]: o.outcome for nodeid, o in result.outcomes.items()}


@pytest.mark.parametrize("warm", [True, False], ids=["warm server", "fresh process"])
def test_confined_runs_stop_every_attack_and_allow_ordinary_tests(
    project: tuple[Path, Path, list[bytes]], warm: bool
) -> None:
    root, home, received = project
    marker = os.environ["MARKER"]

    outcomes = run(root, Confinement(), warm)

    assert {name: outcomes[name] for name in ATTACKS} == dict.fromkeys(ATTACKS, "failed")
    assert {name: outcomes[name] for name in ALLOWED} == dict.fromkeys(ALLOWED, "passed")
    assert outcomes["test_read_the_project"] == "passed"
    assert not (root / "planted.txt").exists()
    assert (home / ".bashrc").read_text() == "mine"
    assert received == []
    assert marked(marker) == []  # the namespace ended with its server


def test_unconfined_the_same_attacks_work(project: tuple[Path, Path, list[bytes]]) -> None:
    root, home, received = project
    marker = os.environ["MARKER"]
    try:
        outcomes = run(root, None, warm=True)
    finally:
        leftover = marked(marker)
        for pid in leftover:
            os.kill(int(pid), 9)

    assert {name: outcomes[name] for name in ATTACKS} == dict.fromkeys(ATTACKS, "passed")
    assert (root / "planted.txt").exists()
    assert (home / ".bashrc").read_text() == "evil"
    assert received
    assert leftover


def test_a_confined_run_that_hangs_is_ended_and_the_next_run_works(tmp_path: Path) -> None:
    (tmp_path / "test_hang.py").write_text(
        "import time\n\n\ndef test_hangs():\n    time.sleep(60)\n\n\ndef test_ok():\n    pass\n"
    )
    args = ["-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path)]
    with Runner(tmp_path, tmp_path, args, 2, confinement=Confinement()) as runner:
        hung = runner.run(["test_hang.py::test_hangs"])
        after = runner.run(["test_hang.py::test_ok"])

    assert hung.problem is not None and "did not finish within 2 s" in hung.problem
    assert after.problem is None
    assert after.outcomes["test_hang.py::test_ok"].outcome == "passed"


SERVERS = """\
import os
import subprocess


def test_drive_the_users_tmux():
    keys = "touch " + os.environ["TMUX_MARKER"]
    tmux = ["tmux", "-S", os.environ["TMUX_SOCKET"], "send-keys", "-t", "main", keys, "Enter"]
    subprocess.run(tmux, check=True, timeout=10)


def test_list_the_keys_of_the_users_ssh_agent():
    env = {**os.environ, "SSH_AUTH_SOCK": os.environ["AGENT_SOCKET"]}
    listed = subprocess.run(["ssh-add", "-l"], env=env, timeout=10)
    assert listed.returncode in (0, 1)  # 1: no keys; 2: the agent cannot be reached
"""


@pytest.fixture
def servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A tmux server (a shell in session "main") and an ssh-agent of the test's own, as the user
    who runs pytest inside tmux with an agent has them."""
    for program in ("tmux", "ssh-agent", "ssh-add"):
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")
    root = tmp_path / "project"
    root.mkdir()
    (root / "test_servers.py").write_text(SERVERS)
    tmux, agent = tmp_path / "tmux.sock", tmp_path / "agent.sock"
    start = ["tmux", "-S", str(tmux), "-f", "/dev/null", "new-session", "-d", "-s", "main", "sh"]
    subprocess.run(start, check=True)
    keeper = subprocess.Popen(["ssh-agent", "-D", "-a", str(agent)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not agent.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        monkeypatch.setenv("TMUX_SOCKET", str(tmux))
        monkeypatch.setenv("TMUX_MARKER", str(tmp_path / "typed-by-the-candidate"))
        monkeypatch.setenv("AGENT_SOCKET", str(agent))
        yield root
    finally:
        subprocess.run(["tmux", "-S", str(tmux), "kill-server"], check=False)
        keeper.kill()
        keeper.wait()


@pytest.mark.parametrize("confined", [True, False], ids=["confined", "unconfined"])
def test_the_users_tmux_and_ssh_agent_are_out_of_reach(servers: Path, confined: bool) -> None:
    outcomes = run(servers, Confinement() if confined else None, True, "test_servers.py")
    marker = Path(os.environ["TMUX_MARKER"])
    deadline = time.monotonic() + (0.5 if confined else 10)
    while not marker.exists() and time.monotonic() < deadline:  # the pane runs it on its own
        time.sleep(0.02)

    expected = "failed" if confined else "passed"
    assert outcomes == {
        "test_drive_the_users_tmux": expected,
        "test_list_the_keys_of_the_users_ssh_agent": expected,
    }
    assert marker.exists() is not confined


FORGER = """\
import json
import os
from pathlib import Path


def test_forges_its_verdict():
    # The run's folder is above its temporary folder; the spec and the result are there.
    folder = Path(os.environ["TMPDIR"])
    while not (folder / "spec.json").exists():
        folder = folder.parent
    nodeids = json.loads((folder / "spec.json").read_text())["nodeids"]
    forged = {"exit_code": 0, "outcomes": {}, "collect_errors": [], "trace": None}
    for nodeid in nodeids:
        nodeid = nodeid.rsplit("/", 1)[-1]
        forged["outcomes"][nodeid] = {"outcome": "passed", "detail": ""}
    try:
        (folder / "result.json").write_text(json.dumps(forged))
        (folder / "result.partial").mkdir()  # the worker's own write then failed
    except OSError:
        pass
    assert False, "the code under test is wrong"
"""


@pytest.mark.parametrize("warm", [True, False], ids=["warm server", "fresh process"])
def test_a_run_cannot_forge_its_result(tmp_path: Path, warm: bool) -> None:
    (tmp_path / "test_forger.py").write_text(FORGER)
    args = ["-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path)]
    with Runner(tmp_path, tmp_path, args, 30, warm=warm, confinement=Confinement()) as runner:
        result = runner.run(["test_forger.py::test_forges_its_verdict"])

    assert result.problem is None, result.output[-2000:]
    assert result.outcomes["test_forger.py::test_forges_its_verdict"].outcome == "failed"
