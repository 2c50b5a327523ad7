"""caretaker run with an interpreter that has no caretaker (run/kit.py): the kit alone, on the
standard library alone, records a crash and runs a candidate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pytest_caretaker.run import kit
from pytest_caretaker.run.hook import RECORD_ENV, ROOT_ENV, SITECUSTOMIZE

CRASH = "def average(values):\n    return sum(values) / len(values)\n\n\naverage([])\n"


def bare(kit_folder: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run caretaker's interpreter without site-packages (-S) and with only the kit's folder
    added: what an interpreter without caretaker, pytest or libcst can import."""
    boot = (
        f"import sys; sys.path.insert(0, {str(kit_folder)!r}); import sitecustomize; "
        "sys.argv = sys.argv[1:]; import runpy; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", boot, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_kit_alone_records_a_crash_with_its_locals(tmp_path: Path) -> None:
    folder = tmp_path / "hook"
    kit.place(folder)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (tmp_path / "report.py").write_text(CRASH)
    record = tmp_path / "record.json"
    env = {**os.environ, RECORD_ENV: str(record), ROOT_ENV: str(tmp_path)}

    done = bare(folder, str(tmp_path / "report.py"), env=env)

    assert "ZeroDivisionError" in done.stderr
    data = json.loads(record.read_text())
    assert "values" in json.dumps(data), data  # the frame's locals came with it


def test_every_module_the_child_imports_is_in_the_kit(tmp_path: Path) -> None:
    kit.place(tmp_path)
    check = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
        "import pytest_caretaker.run.child, pytest_caretaker.record.failure\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', 'libcst', 'git')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", check], capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
