"""Ctrl-C at every step of --heal-write (#30): no index.lock is left, no git of caretaker's still
runs once it has stopped, and the user's index and work tree are as they were but for the fixes
it reports written.

A harness imports the writer once, then, for each step, forks a writer of two fixes into a copy of
a repository (the user has a change staged and one not) and sends SIGINT at that step, counted by
a profile hook: each call of a function of the writer, its repository and its journal, each git
command GitPython starts and each stage of its subprocess (the fork and exec, the wait for its
output, the wait for its end). Two ways: to the writer alone (an IDE's stop button, ``kill
-INT``), at every step; and to the writer's process group (a terminal's Ctrl-C, which reached the
git it ran too), at every stage of a git command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.results import Candidate, Edit, FileChange, Fix, HealResult
from pytest_caretaker.settings import Settings
from pytest_caretaker.write.writer import write_fixes

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="forks, and lists processes in /proc"
)

ROOT = Path(__file__).resolve().parents[2]
FILES = ("calc.py", "other.py")  # the two fixes, in the order they are written
STAGED, UNSTAGED = b"staged = 1\n", b"unstaged = 1\n"  # the user's changes
OLD, NEW = b"A = 1\n", b"B = 1\n"

HARNESS = """\
import json
import os
import shutil
import signal
import subprocess
import sys
import traceback
from pathlib import Path

import git

import pytest_caretaker.write
from pytest_caretaker.results import Candidate, Edit, FileChange, Fix, HealResult
from pytest_caretaker.settings import Settings
from pytest_caretaker.write.writer import write_fixes

template, work, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
WRITE = os.path.dirname(pytest_caretaker.write.__file__)
STEPS = {os.path.join(WRITE, name) for name in ("writer.py", "repository.py", "recovery.py")}
COMMAND = os.path.join(os.path.dirname(git.__file__), "cmd.py")
PROCESS = {"_execute_child", "communicate", "_communicate", "_wait"}
FILES = ("calc.py", "other.py")


def fix(name):
    change = FileChange(name, b"A = 1\\n", b"B = 1\\n")
    candidate = Candidate((Edit("replace", name, "f", ""),), (change,))
    return Fix((HealResult(f"test_{name}::test", candidate),))


def step(code, event):
    if event != "call" or code.co_name.startswith("<"):
        return False
    if code.co_filename in STEPS:  # the writer's own steps (the same whoever gets the signal)
        return mode == "process"
    if code.co_filename == COMMAND:  # a git command, started, forked, read and waited for
        return code.co_name == "execute"
    return code.co_filename == subprocess.__file__ and code.co_name in PROCESS


def running():
    # This process's children that have not ended: the git commands it started. A process's
    # name is read only for those (once per step, reading every process's was 12 ms of CPU).
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                state, parent = stat.read().rpartition(")")[2].split()[:2]
            if int(parent) != me or state in "ZX":
                continue
            with open(f"/proc/{entry}/comm") as comm:
                found.append(comm.read().strip())
        except (OSError, ValueError):
            continue
    return found


def run(stop):
    os.setpgid(0, 0)  # a process group of its own: a terminal's Ctrl-C reaches it and its own
    repo = work / str(stop)
    shutil.copytree(template, repo, symlinks=True)
    count = [0]

    def profile(frame, event, arg):
        # Most events are returns and C calls: they are no step, and cost no call of step().
        if event == "call" and step(frame.f_code, event):
            count[0] += 1
            if count[0] == stop:
                if mode == "group":
                    os.killpg(0, signal.SIGINT)
                else:
                    os.kill(os.getpid(), signal.SIGINT)

    states = None
    try:
        try:
            sys.setprofile(profile)
            written, _ = write_fixes([fix(n) for n in FILES], repo, Settings(heal=True, write=True))
        finally:
            sys.setprofile(None)
        states = [[w.state, w.detail] for w in written]
    except KeyboardInterrupt:
        pass
    report = {"stop": stop, "steps": count[0], "states": states, "running": running()}
    report["lock"] = (repo / ".git" / "index.lock").exists()
    return report


def fork(stop):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            os.write(write, (json.dumps(run(stop)) + "\\n").encode())
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as stream:
        line = stream.read()
    os.waitpid(pid, 0)
    print(line, end="", flush=True)
    return json.loads(line)


for stop in range(1, fork(0)["steps"] + 1):
    fork(stop)
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


@pytest.fixture
def template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two files the fixes change, committed; the user's staged and unstaged changes."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    path = tmp_path / "template"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test Person")
    git(path, "config", "user.email", "test.person@example.com")
    for name in (*FILES, "staged.py", "unstaged.py"):
        (path / name).write_bytes(OLD)
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "initial")
    (path / "staged.py").write_bytes(STAGED)
    git(path, "add", "staged.py")
    (path / "unstaged.py").write_bytes(UNSTAGED)
    return path


def interrupt_every_step(template: Path, work: Path, mode: str) -> list[dict[str, Any]]:
    """The harness's reports: the run without Ctrl-C, then one run per step."""
    work.mkdir()
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", HARNESS, str(template), str(work), mode],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        start_new_session=True,  # its Ctrl-C stays in its own process groups
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def problems(repo: Path, report: dict[str, Any]) -> list[str]:
    """What is wrong with the repository a writer interrupted at one step left."""
    found = []
    if report["running"]:
        found.append(f"its git still ran when it had stopped: {report['running']}")
    if report["lock"] or (repo / ".git" / "index.lock").exists():
        found.append("index.lock was left")
    found += [f"{p.name} was left" for p in (repo / ".git").glob("next-index-*.lock")]
    if git(repo, "diff", "--cached", "--name-only") != "staged.py\n":
        found.append(f"the user's index changed: {git(repo, 'status', '--porcelain')!r}")
    mine = (repo / "staged.py").read_bytes(), (repo / "unstaged.py").read_bytes()
    if mine != (STAGED, UNSTAGED):
        found.append(f"the user's changes were lost: {mine}")
    for n, name in enumerate(FILES):
        disk, head = (repo / name).read_bytes(), git(repo, "show", f"HEAD:{name}").encode()
        if disk not in (OLD, NEW) or (head == NEW and disk != NEW):
            found.append(f"{name}: {disk!r} on disk, {head!r} committed")
        if report["states"] is None:
            continue
        state, detail = report["states"][n]
        expected = {"committed": (NEW, NEW), "written": (NEW, OLD)}.get(state, (OLD, OLD))
        if (disk, head) != expected or "commit was interrupted" in detail:
            found.append(f"{name} is {state} ({detail}), but {disk!r} on disk, {head!r} in HEAD")
    commits = git(repo, "rev-list", "--reverse", "HEAD").split()[1:]
    changed = [git(repo, "show", "--format=", "--name-only", c).split() for c in commits]
    if changed not in ([], [["calc.py"]], [["calc.py"], ["other.py"]]):
        found.append(f"the commits are not one per fix, in order: {changed}")
    return found


@pytest.mark.parametrize("mode", ["process", "group"])
def test_ctrl_c_at_every_step_of_writing_leaves_no_lock_and_the_users_index_whole(
    template: Path, tmp_path: Path, mode: str
) -> None:
    work = tmp_path / "work"

    whole, *interrupted = interrupt_every_step(template, work, mode)

    assert [state for state, _ in whole["states"]] == ["committed", "committed"]
    assert problems(work / "0", whole) == []
    assert len(interrupted) == whole["steps"] > (100 if mode == "process" else 40)
    wrong = {r["stop"]: problems(work / str(r["stop"]), r) for r in interrupted}
    assert {stop: found for stop, found in wrong.items() if found} == {}
    # The steps span the writing: Ctrl-C before any fix (while git is asked about the files:
    # KeyboardInterrupt, nothing written), and while the first fix is written (it is, and
    # committed; the second is not); in the writer's own steps, between the two as well.
    fates = {tuple(state for state, _ in r["states"] or ()) for r in interrupted}
    assert {(), ("committed", "skipped")} <= fates
    if mode == "process":
        assert ("skipped", "skipped") in fates


def test_a_lock_that_was_there_before_is_kept(template: Path) -> None:
    """The user's own git holds index.lock: caretaker writes its fix, commits nothing, and
    leaves the lock as it found it."""
    lock = template / ".git" / "index.lock"
    lock.write_bytes(b"the user's git\n")
    change = FileChange("calc.py", OLD, NEW)
    fix = Fix(
        (HealResult("t.py::t", Candidate((Edit("replace", "calc.py", "f", ""),), (change,))),)
    )

    written, _ = write_fixes([fix], template, Settings(heal=True, write=True))

    assert written[0].state == "written" and "index.lock" in written[0].detail
    assert lock.read_bytes() == b"the user's git\n"
