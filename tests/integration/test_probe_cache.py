"""The sandbox probe's success is remembered for the boot (verify/probe.py): the next session in
the same place starts no probe process; a cache that says nothing useful is tried again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_caretaker.verify.landlock import abi

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or abi() < 1, reason="the sandbox needs Linux+Landlock"
)

SESSION = """\
import sys
sys.addaudithook(lambda event, args: event == "subprocess.Popen" and print("probed"))
from pytest_caretaker.verify.probe import unavailable
print(unavailable(False))
"""


def session(cache: Path) -> list[str]:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", SESSION], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_a_success_is_remembered_and_a_garbled_cache_is_probed_again(tmp_path: Path) -> None:
    first = session(tmp_path)
    second = session(tmp_path)
    folder = tmp_path / f"pytest-caretaker-{os.geteuid()}"
    (folder / "sandbox-probe.json").write_text("{not json")
    third = session(tmp_path)
    folder.chmod(0o777)  # open to others: what it says could be anybody's
    fourth = session(tmp_path)

    assert first == ["probed", "None"]  # probed for real, and the sandbox is there
    assert second == ["None"]  # remembered: no probe process
    assert third == ["probed", "None"]
    assert fourth == ["probed", "None"]
