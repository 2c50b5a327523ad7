"""`caretaker run` heals are kept in the heal history, as `pytest --heal` sessions are."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from test_run_e2e import SHOP, caretaker, project

PYTHON = sys.executable


def records(root: Path) -> list[dict[str, object]]:
    lines = (root / ".caretaker" / "history.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_a_run_heal_appends_one_record_with_source_run(tmp_path: Path) -> None:
    project(tmp_path, {"shop.py": SHOP})

    done = caretaker(tmp_path, "--sandbox", "off", "--", PYTHON, "shop.py")

    assert "HEALED python shop.py" in done.stdout.splitlines(), done.stdout + done.stderr
    (record,) = records(tmp_path)
    assert record["source"] == "run"
    assert record["outcome"] == "healed"
    assert record["tests"] == ["python shop.py"]
    assert record["exception"] == "ZeroDivisionError"
    assert record["repairer"] == "builtin"
    assert "if len(prices) > 0:" in str(record["diff"])
    assert str(record["transcript"]).startswith(f".caretaker/transcripts/{record['session']}/")
    assert (tmp_path / str(record["transcript"])).is_file()


def test_a_second_heal_appends_a_second_record(tmp_path: Path) -> None:
    project(tmp_path, {"shop.py": SHOP})

    caretaker(tmp_path, "--sandbox", "off", "--", PYTHON, "shop.py")
    caretaker(tmp_path, "--sandbox", "off", "--", PYTHON, "shop.py")

    first, second = records(tmp_path)
    assert first["session"] != second["session"]
    assert [first["source"], second["source"]] == ["run", "run"]


def test_a_history_that_cannot_be_appended_is_one_line_and_the_heal_stands(
    tmp_path: Path,
) -> None:
    project(tmp_path, {"shop.py": SHOP})
    history = tmp_path / ".caretaker" / "history.jsonl"
    history.parent.mkdir()
    history.mkdir()  # a folder where the file should be: appending fails with an OSError

    done = caretaker(tmp_path, "--sandbox", "off", "--", PYTHON, "shop.py")

    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stderr
    assert "HEALED python shop.py" in lines
    assert (
        lines.count(
            "caretaker: could not append to .caretaker/history.jsonl; "
            "this heal is missing from caretaker report"
        )
        == 1
    )
    assert "pytest_caretaker" not in done.stdout + done.stderr  # no caretaker traceback
    assert (tmp_path / ".caretaker" / "heal.patch").is_file()
    assert history.is_dir()
