"""SIGKILL while atomic_write replaces a file: the file is the old one or a new one, never a mix."""

from __future__ import annotations

import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
