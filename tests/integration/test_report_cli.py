"""``caretaker report`` and ``python -m pytest_caretaker`` in real processes, and the history's
appends from two processes at once."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_caretaker.history import read

FIXED = Path(__file__).with_name("test_report_history.jsonl")


def caretaker(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_caretaker", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / ".caretaker").mkdir()
    shutil.copy(FIXED, tmp_path / ".caretaker" / "history.jsonl")
    (tmp_path / "src" / "demo").mkdir(parents=True)
    return tmp_path


def test_report_writes_the_page_where_asked(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "pages" / "heals.html"

    done = caretaker("report", "-o", str(out), cwd=project)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"caretaker: report of 8 bugs in 5 sessions (4 healed) written to {out}"
    )
    assert '<dd id="total-bugs">8</dd>' in out.read_text(encoding="utf-8")


def test_report_finds_the_root_from_a_subfolder(project: Path) -> None:
    done = caretaker("report", "--since", "2025-03-02T00:00:00Z", cwd=project / "src" / "demo")

    assert done.returncode == 0, done.stderr
    page = (project / ".caretaker" / "report.html").read_text(encoding="utf-8")
    assert '<span id="sessions">4 sessions</span> from 2025-03-02 14:30:00 UTC' in page


def test_no_history_is_one_line_and_status_1(tmp_path: Path) -> None:
    (tmp_path / "setup.cfg").write_text("")

    done = caretaker("report", cwd=tmp_path)

    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"caretaker: no heal history in {tmp_path.resolve() / '.caretaker' / 'history.jsonl'} "
        "yet: run pytest --heal first\n"
    )


def test_nothing_since_the_date_is_status_1(project: Path) -> None:
    done = caretaker("report", "--since", "2030-01-01", cwd=project)

    assert done.returncode == 1 and "no heal in" in done.stderr


@pytest.mark.parametrize("args", [["report", "--since", "last week"], ["frobnicate"], []])
def test_usage_errors_are_status_2(project: Path, args: list[str]) -> None:
    done = caretaker(*args, cwd=project)

    assert done.returncode == 2
    assert "usage: caretaker" in done.stderr


def test_the_console_script_is_installed(project: Path) -> None:
    script = Path(sys.executable).with_name("caretaker")
    if not script.exists():
        pytest.skip(f"no {script}: the package is not installed with its scripts")

    done = subprocess.run(
        [str(script), "report"], cwd=project, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr
    assert (project / ".caretaker" / "report.html").is_file()


APPENDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from pytest_caretaker.history.store import append

    root, name, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    while not go.exists():
        time.sleep(0.001)
    for number in range(400):
        append(root, [{"writer": name, "n": number, "padding": "x" * (number % 7) * 300}])
    """
)


def test_two_processes_appending_at_once_lose_no_line(tmp_path: Path) -> None:
    go = tmp_path / "go"
    writers = [
        subprocess.Popen([sys.executable, "-c", APPENDER, str(tmp_path), name, str(go)])
        for name in ("a", "b")
    ]
    go.write_text("")  # both start together

    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    history = read(tmp_path)
    assert history.unreadable == 0
    seen = sorted((r["writer"], r["n"]) for r in history.records)
    assert seen == [(name, n) for name in ("a", "b") for n in range(400)]
    lines = (tmp_path / ".caretaker" / "history.jsonl").read_text().splitlines()
    assert all(
        json.loads(line)["padding"] == "x" * len(json.loads(line)["padding"]) for line in lines
    )
