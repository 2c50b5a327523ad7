"""SIGKILL while atomic_write replaces a file: the file is the old one or a new one, never a mix;
and what a killed --heal-write leaves (a temporary file, git's index.lock) is removed by the next,
unless a live process may hold it."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_caretaker.results import Candidate, Edit, FileChange, Fix, HealResult
from pytest_caretaker.settings import Settings
from pytest_caretaker.write.recovery import recover
from pytest_caretaker.write.writer import write_fixes

pytestmark = pytest.mark.skipif(
    os.name != "posix" or not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX"
)

ROOT = Path(__file__).resolve().parents[2]
LINES = 175_000  # about 2 MB per version
KILLS = 15
MODE = 0o640
NAME = "data.txt"
#: atomic_write's temporary file: mkstemp(dir=..., prefix=".<name>.<pid>.", suffix=".caretaker")
TEMPORARY = re.compile(rf"\.{re.escape(NAME)}\.\d+\.[A-Za-z0-9_]+\.caretaker")
TEMPORARY_BIG = re.compile(r"\.big\.txt\.\d+\.[A-Za-z0-9_]+\.caretaker")

# A child that imports atomic_write once, then, for each "go" it reads, forks a writer that puts
# A, B, A, B ... over the file until it is killed; it prints the writer's pid, then how it ended.
# (A fresh interpreter per kill would pay the package's import each time: seconds for 15 kills.)
CHILD = """\
import os
import sys
from pathlib import Path

from pytest_caretaker.write.writer import atomic_write

path, lines = Path(sys.argv[1]), int(sys.argv[2])
versions = [b"".join(b"%s %07d\\n" % (tag, i) for i in range(lines)) for tag in (b"A", b"B")]
print("ready", flush=True)
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        try:
            while True:
                for data in versions:
                    atomic_write(path, data)
        finally:
            os._exit(1)
    print(pid, flush=True)
    _, status = os.waitpid(pid, 0)
    print(os.WTERMSIG(status) if os.WIFSIGNALED(status) else -1, flush=True)
"""


def content(tag: bytes) -> bytes:
    return b"".join(b"%s %07d\n" % (tag, i) for i in range(LINES))


def test_sigkill_during_atomic_write_leaves_the_old_or_a_new_file_whole(tmp_path: Path) -> None:
    rng = random.Random(20261121)
    target = tmp_path / NAME
    old, a, b = content(b"old"), content(b"A"), content(b"B")
    versions = {old: "old", a: "A", b: "B"}
    target.write_bytes(old)
    target.chmod(MODE)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(target), str(LINES)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    assert child.stdin is not None and child.stdout is not None
    writer = 0
    seen: list[str] = []
    leftovers: set[str] = set()
    try:
        assert child.stdout.readline() == b"ready\n"
        for kill in range(KILLS):
            child.stdin.write(b"go\n")
            child.stdin.flush()
            writer = int(child.stdout.readline())
            time.sleep(rng.uniform(0, 0.05))
            os.kill(writer, signal.SIGKILL)
            assert int(child.stdout.readline()) == signal.SIGKILL
            writer = 0

            data = target.read_bytes()
            assert data in versions, f"kill {kill}: {len(data)} bytes, neither old, A nor B"
            seen.append(versions[data])
            assert stat.S_IMODE(target.stat().st_mode) == MODE
            for path in tmp_path.iterdir():
                if path == target:
                    continue
                # A kill before the rename may leave the temporary file: it is never the target.
                assert TEMPORARY.fullmatch(path.name), f"unexpected file {path.name}"
                partial = path.read_bytes()
                assert a.startswith(partial) or b.startswith(partial), path.name
                leftovers.add(path.name)
    finally:
        if writer:
            os.kill(writer, signal.SIGKILL)  # the writer this test forked, should an assert fail
        child.stdin.close()
        try:
            child.wait(timeout=10)
        finally:
            if child.poll() is None:
                os.kill(child.pid, signal.SIGKILL)
                child.wait()
            child.stdout.close()
    assert child.returncode == 0
    print(f"after each kill: {' '.join(seen)}; temporary files left: {len(leftovers)}")


# -- the next --heal-write removes what a killed one left --------------------------------------

# A caretaker that writes and commits one fix to calc.py (small) or big.txt (2 MB), in its own
# session so that the test can kill it and its git, as an out-of-memory killer might (its git runs
# in a session of its own, which a terminal's signals do not reach: see signal_writer).
WRITER = """\
import sys
from pathlib import Path

from pytest_caretaker.results import Candidate, Edit, FileChange, Fix, HealResult
from pytest_caretaker.settings import Settings
from pytest_caretaker.write.writer import write_fixes

root, name = Path(sys.argv[1]), sys.argv[2]
before = (root / name).read_bytes()
change = FileChange(name, before, before.replace(b"A", b"B"))
edit = Edit("replace", name, "f", "")
fix = Fix((HealResult("test_x.py::test_x", Candidate((edit,), (change,))),))
print(write_fixes([fix], root, Settings(heal=True, write=True)), flush=True)
"""
CALC = b"A = 1\n"
ENTRIES = 30_000  # index entries: a bigger index keeps git's index.lock long enough to see


def git(repo: Path, *args: str, check: bool = True, **kwargs: object) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False, **kwargs
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository of calc.py, big.txt and ENTRIES more index entries (files not on disk)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test Person")
    git(path, "config", "user.email", "test.person@example.com")
    blob = git(path, "hash-object", "-w", "--stdin", input="x\n").strip()
    entries = "".join(f"100644 {blob}\td/f{i:05d}.txt\n" for i in range(ENTRIES))
    git(path, "update-index", "--index-info", input=entries)
    (path / "calc.py").write_bytes(CALC)
    (path / "big.txt").write_bytes(content(b"A"))
    (path / "other.py").write_bytes(CALC)
    git(path, "add", "calc.py", "big.txt", "other.py")
    git(path, "commit", "-q", "-m", "initial")
    return path


def start_writer(repo: Path, name: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(repo), name],
        stdout=subprocess.PIPE,
        cwd=repo,
        env=env,
        start_new_session=True,  # its own process group: the writer and its git
    )


def stop_when(
    child: subprocess.Popen[bytes], seen: Callable[[], bool], signal_: int | None
) -> None:
    """Send signal_ to the writer and its git as soon as seen() holds (None: only wait)."""
    deadline = time.monotonic() + 60
    while not seen():
        assert child.poll() is None, "the writer ended before the moment to stop it came"
        assert time.monotonic() < deadline
        time.sleep(0.0002)
    if signal_ is not None:
        signal_writer(child, signal_)


def signal_writer(child: subprocess.Popen[bytes], signal_: int) -> None:
    """signal_ to the writer's process group and to the git it runs, in a session of its own
    (repository.py). The writer is stopped first, so that it starts no other git meanwhile."""
    os.killpg(child.pid, signal.SIGSTOP)
    for pid in children(child.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal_)
    os.killpg(child.pid, signal_)


def children(pid: int) -> list[int]:
    listed = Path("/proc", str(pid), "task", str(pid), "children")  # quick: git holds the lock
    with contextlib.suppress(OSError):  # for a moment only
        return [int(child) for child in listed.read_text().split()]
    found = []
    for entry in Path("/proc").iterdir():
        try:
            parent = (entry / "stat").read_text().rpartition(")")[2].split()[1]
        except (OSError, IndexError):
            continue
        if int(parent) == pid:
            found.append(int(entry.name))
    return found


def kill(child: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        signal_writer(child, signal.SIGKILL)
    child.wait()
    assert child.stdout is not None
    child.stdout.close()


def other_fix() -> Fix:
    change = FileChange("other.py", CALC, b"A = 2\n")
    edit = Edit("replace", "other.py", "f", "")
    return Fix((HealResult("test_o.py::test_o", Candidate((edit,), (change,))),))


def killed_in_git(repo: Path) -> int:
    """Kill a writer (and its git) while its git holds index.lock; its pid."""
    lock = repo / ".git" / "index.lock"
    root = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    for _ in range(5):  # git may end between the lock being seen and the kill: again, afresh
        child = start_writer(repo, "calc.py")
        try:
            stop_when(child, lock.exists, signal.SIGKILL)
        finally:
            kill(child)
        if lock.exists():
            break
        for leftover in [*(repo / ".caretaker").glob("writing-*.json"), *repo.glob(".git/*.lock")]:
            leftover.unlink()
        git(repo, "reset", "-q", "--hard", root)
    assert lock.exists(), "git ended between the lock being seen and the kill, five times"
    assert (repo / ".caretaker" / f"writing-{child.pid}.json").exists()
    return child.pid


def test_index_lock_left_by_a_killed_write_is_removed_by_the_next(repo: Path) -> None:
    pid = killed_in_git(repo)
    user = subprocess.run(
        ["git", "-C", str(repo), "commit", "--allow-empty", "-m", "user"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert user.returncode != 0 and "index.lock" in user.stderr  # every git is stuck

    written, notes = write_fixes([other_fix()], repo, Settings(heal=True, write=True))

    assert notes[0].startswith(f"caretaker: an interrupted --heal-write (pid {pid}) left ")
    assert ".git/index.lock" in notes[0] and notes[0].endswith("; removed")
    assert [w.state for w in written] == ["committed"], written[0].detail
    assert not (repo / ".git" / "index.lock").exists()
    assert list((repo / ".git").glob("next-index-*.lock")) == []
    assert list((repo / ".caretaker").glob("writing-*.json")) == []
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["other.py"]


def test_a_lock_held_by_a_live_git_is_kept(repo: Path, tmp_path: Path) -> None:
    """The user's git commit, waiting for its editor, holds index.lock after a killed write."""
    pid = killed_in_git(repo)
    lock = repo / ".git" / "index.lock"
    lock.unlink()  # as the user would, to get on with their work
    done = tmp_path / "editor-may-return"
    editor = tmp_path / "editor"
    editor.write_text(f'#!/bin/sh\necho user > "$1"\nwhile [ ! -e {done} ]; do sleep 0.05; done\n')
    editor.chmod(0o755)
    (repo / "other.py").write_bytes(b"A = 3\n")
    git(repo, "add", "other.py")
    user = subprocess.Popen(
        ["git", "-C", str(repo), "commit"],
        env={**os.environ, "GIT_EDITOR": str(editor)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        stop_when(user, lock.exists, None)
        notes = recover(repo)
        assert lock.exists()
        assert notes == [
            f"caretaker: an interrupted --heal-write (pid {pid}) left .git/index.lock; kept it: "
            "a git command may be running in this repository; remove the file if none is"
        ]
    finally:
        done.touch()  # the editor returns; the user's commit completes
        try:
            user.wait(timeout=30)
        finally:
            if user.poll() is None:
                user.kill()
                user.wait()
    assert user.returncode == 0
    assert git(repo, "log", "-1", "--format=%s") == "user\n"
    # Once the user's git is done, the next run removes what is left of the killed one.
    assert [note.endswith("; removed") for note in recover(repo)] in ([], [True])
    assert list((repo / ".caretaker").glob("writing-*.json")) == []


def test_a_stopped_writer_is_alive_and_its_lock_is_kept(repo: Path) -> None:
    lock = repo / ".git" / "index.lock"
    child = start_writer(repo, "calc.py")
    try:
        stop_when(child, lock.exists, signal.SIGSTOP)
        assert lock.exists()
        assert recover(repo) == []
        assert lock.exists()
        signal_writer(child, signal.SIGCONT)
        assert child.stdout is not None
        assert b"'committed'" in child.stdout.read()
        assert child.wait(timeout=30) == 0
    finally:
        kill(child)
    assert not lock.exists()
    assert list((repo / ".caretaker").glob("writing-*.json")) == []


def test_a_temporary_file_left_by_a_killed_write_is_removed_by_the_next(repo: Path) -> None:
    def temporaries() -> list[Path]:
        return [p for p in repo.iterdir() if p.name.startswith(".big.txt.")]

    child = start_writer(repo, "big.txt")
    try:
        stop_when(child, lambda: bool(temporaries()), signal.SIGKILL)
    finally:
        kill(child)
    left = temporaries()
    assert len(left) == 1 and TEMPORARY_BIG.fullmatch(left[0].name), left
    assert f".{child.pid}." in left[0].name
    assert (repo / "big.txt").read_bytes() == content(b"A")  # the old file, whole

    written, notes = write_fixes([other_fix()], repo, Settings(heal=True, write=True))

    assert notes == [
        f"caretaker: an interrupted --heal-write (pid {child.pid}) left {left[0].name}; removed"
    ]
    assert temporaries() == []
    assert [w.state for w in written] == ["committed"]


def test_a_reused_pid_is_not_taken_for_the_killed_writer(tmp_path: Path) -> None:
    """A journal whose pid now belongs to another process (told apart by its start time) is
    cleaned; one whose process is that very one is not."""
    target = tmp_path / "calc.py"
    target.write_bytes(CALC)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        folder = tmp_path / ".caretaker"
        folder.mkdir()
        temporary = tmp_path / f".calc.py.{sleeper.pid}.abcd1234.caretaker"
        temporary.write_bytes(b"partial")
        start = (Path("/proc") / str(sleeper.pid) / "stat").read_text().rpartition(")")[2]
        record = {"pid": sleeper.pid, "created": 0, "targets": [str(target)]}
        journal = folder / f"writing-{sleeper.pid}.json"

        journal.write_text(json.dumps({**record, "start": start.split()[19]}))
        assert recover(tmp_path) == []
        assert temporary.exists() and journal.exists()

        journal.write_text(json.dumps({**record, "start": "1"}))  # an earlier process's pid
        assert recover(tmp_path) == [
            f"caretaker: an interrupted --heal-write (pid {sleeper.pid}) left "
            f"{temporary.name}; removed"
        ]
        assert not temporary.exists() and not journal.exists()
        assert target.read_bytes() == CALC
    finally:
        sleeper.kill()
        sleeper.wait()
