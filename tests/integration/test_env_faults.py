"""Faults of the machine end one failure's healing, or cost one file, in one line; they never stop
every heal with `internal error … please report it` (#15).

Each fault is real: a read-only file system and a full one are mounted in a private mount
namespace where this machine allows it (`unshare -m`, as root or with user namespaces); a file
where caretaker's folder goes and /dev/full (every write: ENOSPC) work anywhere; the cache is
damaged on disk; a test file's name holds a byte that is not UTF-8.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CALC = "def add(a, b):\n    return a - b\n"
TESTS = """\
from calc import add


def test_add():
    assert add(2, 3) == 5


def test_add0():
    assert add(0, 3) == 3


def test_zero():
    assert add(0, 0) == 0
"""
HEALED = [
    "HEALED test_calc.py::test_add",
    "HEALED test_calc.py::test_add0",
    "caretaker: 2 healed, 0 not healed*",
]


def no_internal_error(output: str) -> None:
    assert "INTERNALERROR" not in output
    assert "please report it" not in output
    assert "Traceback" not in output


def _can_mount() -> bool:
    """Whether a private mount namespace may mount here (a tmpfs over a scratch folder)."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    mount = "mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || mount -t tmpfs tmpfs /tmp"
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", mount],
        capture_output=True,
        timeout=30,
    )
    return done.returncode == 0


needs_mount = pytest.mark.skipif(not _can_mount(), reason="no private mount namespace here")


def heal_in_namespace(setup: str, project: Path) -> str:
    """Run `pytest --heal` in project after the shell commands setup, in a mount namespace of
    its own (what setup mounts is gone when it ends); stdout and stderr."""
    script = f"set -e\n{setup}\ncd {project}\nexec {sys.executable} -m pytest --heal -p no:xdist"
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # the tests failed
    return done.stdout + done.stderr


def project_in(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "calc.py").write_text(CALC)
    (folder / "test_calc.py").write_text(TESTS)
    return folder


@needs_mount
def test_a_read_only_project_is_healed_and_says_what_it_could_not_write(tmp_path: Path) -> None:
    project = project_in(tmp_path / "project")
    read_only = f"mount --bind {project} {project}\nmount -o remount,bind,ro {project}"

    output = heal_in_namespace(read_only, project)

    no_internal_error(output)
    pytest.LineMatcher(output.splitlines()).fnmatch_lines(
        [
            *HEALED,
            "caretaker: could not write to .caretaker/ ([[]Errno 30[]] Read-only file system*); "
            "the patch and the transcripts are missing, the fixes are in this summary",
        ]
    )
    assert "caretaker: the fixes found were not remembered: " in output
    assert not (project / ".caretaker").exists()


@needs_mount
def test_a_full_disk_is_healed_and_says_what_it_could_not_write(tmp_path: Path) -> None:
    source, disk = project_in(tmp_path / "source"), tmp_path / "disk"
    disk.mkdir()
    full = (
        f"mount -t tmpfs -o size=1m tmpfs {disk}\ncp -r {source}/. {disk}\n"
        f"head -c 2m /dev/zero > {disk}/filler || true"
    )

    output = heal_in_namespace(full, disk)

    no_internal_error(output)
    pytest.LineMatcher(output.splitlines()).fnmatch_lines(
        [*HEALED, "caretaker: could not write to .caretaker/ ([[]Errno 28[]] No space left*"]
    )


@pytest.fixture
def calc(pytester: pytest.Pytester) -> pytest.Pytester:
    project_in(pytester.path)
    return pytester


def test_a_file_where_caretakers_folder_goes_costs_only_its_files(calc: pytest.Pytester) -> None:
    (calc.path / ".caretaker").write_text("a file, where caretaker makes its folder")

    result = calc.runpytest("--heal")

    no_internal_error(result.stdout.str())
    result.stdout.fnmatch_lines([*HEALED, "caretaker: could not write to .caretaker/ (*"])


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_patch_that_meets_a_full_device_costs_only_the_files(calc: pytest.Pytester) -> None:
    (calc.path / ".caretaker").mkdir()
    (calc.path / ".caretaker" / ".gitignore").write_text("*\n")
    (calc.path / ".caretaker" / "heal.patch").symlink_to("/dev/full")

    result = calc.runpytest("--heal")

    no_internal_error(result.stdout.str())
    result.stdout.fnmatch_lines(
        [*HEALED, "caretaker: could not write to .caretaker/ ([[]Errno 28[]] No space left*"]
    )


def test_a_cache_nested_too_deeply_is_one_warning_and_every_failure_heals(
    calc: pytest.Pytester,
) -> None:
    fixes = calc.path / ".pytest_cache" / "v" / "caretaker" / "fixes"
    fixes.parent.mkdir(parents=True)
    fixes.write_text("[" * 100_000 + "]" * 100_000)

    result = calc.runpytest("--heal")

    no_internal_error(result.stdout.str())
    result.stdout.fnmatch_lines(
        [*HEALED, "caretaker: pytest's cache entry caretaker/fixes is damaged (nested too deeply*"]
    )
    # Rewritten: the next run reads it and reuses the fix.
    calc.runpytest("--heal").stdout.fnmatch_lines(["HEALED test_calc.py::test_add (from cache)"])


def test_a_test_file_whose_name_is_not_utf8_heals_with_the_others(calc: pytest.Pytester) -> None:
    name = b"test_b\xff.py"
    (calc.path / os.fsdecode(name)).write_text(
        "from calc import add\n\n\ndef test_b():\n    assert add(1, 1) == 2\n"
    )

    # pytest's own cache plugin fails on such a node id at the end of the run (not caretaker's
    # fault, and outside its reach), so it is left out here.
    result = calc.runpytest("--heal", "-p", "no:cacheprovider")

    no_internal_error(result.stdout.str())
    result.stdout.fnmatch_lines(
        [
            "HEALED test_b*.py::test_b",
            "HEALED test_calc.py::test_add",
            "HEALED test_calc.py::test_add0",
            "caretaker: 3 healed, 0 not healed*",
        ]
    )
    transcripts = sorted(p.name for p in (calc.path / ".caretaker" / "transcripts").rglob("*.md"))
    assert transcripts[0].startswith("test_b_.py_test_b-")
