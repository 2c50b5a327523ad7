"""What the sandbox's view hides that outlives a run or belongs to the machine: files in
/dev/shm, System V shared memory, the user's terminals and the machine's process list.

Each attack runs once confined and once unconfined (where it works, so the test can fail), in a
mount and IPC namespace of the test's own (``unshare``), with an empty tmpfs on /dev/shm: what an
unconfined run leaves there never touches the machine's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_caretaker.verify.probe import unavailable

pytestmark = [
    pytest.mark.skipif(
        unavailable(False) is not None, reason=f"no sandbox here: {unavailable(False)}"
    ),
    pytest.mark.skipif(shutil.which("unshare") is None, reason="unshare is not installed"),
]

PROBES = """\
import ctypes
import os
from pathlib import Path


def test_leave_a_file_in_dev_shm():
    Path("/dev/shm", os.environ["MARKER"]).write_text("left behind")


def test_leave_a_system_v_segment():
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.shmget(0, 4096, 0o1000 | 0o600) >= 0  # IPC_PRIVATE, IPC_CREAT


def test_write_to_the_users_terminal():
    with open(os.environ["TERMINAL"], "w") as terminal:
        terminal.write("typed by the candidate")


def test_list_the_machines_processes():
    found = []
    for entry in Path("/proc").iterdir():
        try:
            found.append((entry / "cmdline").read_bytes())
        except OSError:
            continue
    assert any(os.environ["MARKER"].encode() in line for line in found)
"""

#: Runs in the test's own namespaces: one verification of PROBES, then what it left.
DRIVER = """\
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from pytest_caretaker.verify.runner import Confinement, Runner

root, confined = Path(sys.argv[1]), sys.argv[2] == "confined"
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/dev/shm"], check=True)
marker = os.environ["MARKER"]
witness = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])
main, follower = os.openpty()
os.environ["TERMINAL"] = os.ttyname(follower)
args = ["-q", "-p", "no:cacheprovider", "--rootdir", str(root)]
try:
    with Runner(root, root, args, 60, confinement=Confinement() if confined else None) as runner:
        result = runner.run(["test_probes.py"])
finally:
    witness.kill()
os.set_blocking(main, False)
try:
    typed = os.read(main, 1000).decode()
except BlockingIOError:
    typed = ""
segments = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
print(json.dumps({
    "problem": result.problem,
    "outcomes": {k.split("::")[1]: o.outcome for k, o in result.outcomes.items()},
    "shm": os.listdir("/dev/shm"),
    "segments": len(segments),
    "typed": typed,
}))
"""


def run_in_namespaces(tmp_path: Path, confined: bool) -> dict[str, object]:
    root = tmp_path / "project"
    root.mkdir()
    (root / "test_probes.py").write_text(PROBES)
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    private = ["unshare", "--mount", "--ipc", "--propagation", "private"]
    if os.geteuid() != 0:
        private[1:1] = ["--user", "--map-root-user"]
    env = {**os.environ, "MARKER": f"caretaker-view-{tmp_path.name}-{os.getpid()}"}
    command = [*private, sys.executable, str(driver), str(root), "confined" if confined else "-"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_confined_runs_leave_nothing_and_see_nothing_of_the_machine(tmp_path: Path) -> None:
    found = run_in_namespaces(tmp_path, confined=True)

    assert found["problem"] is None
    outcomes = found["outcomes"]
    assert isinstance(outcomes, dict)
    # Writing its own /dev/shm and making a segment work, inside: they go with the sandbox.
    assert outcomes["test_leave_a_file_in_dev_shm"] == "passed"
    assert outcomes["test_leave_a_system_v_segment"] == "passed"
    assert outcomes["test_write_to_the_users_terminal"] == "failed"
    assert outcomes["test_list_the_machines_processes"] == "failed"
    assert found["shm"] == []
    assert found["segments"] == 0
    assert found["typed"] == ""


def test_unconfined_the_same_attacks_work(tmp_path: Path) -> None:
    found = run_in_namespaces(tmp_path, confined=False)

    assert found["problem"] is None
    assert found["outcomes"] == dict.fromkeys(
        [
            "test_leave_a_file_in_dev_shm",
            "test_leave_a_system_v_segment",
            "test_write_to_the_users_terminal",
            "test_list_the_machines_processes",
        ],
        "passed",
    )
    assert found["shm"] != []
    assert found["segments"] == 1
    assert "typed by the candidate" in str(found["typed"])
