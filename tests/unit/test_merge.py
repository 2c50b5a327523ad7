"""caretaker merge's logic (ci/merge.py, ci/shard_diffs.py): diffs rebuilt into files, fixes
alike taken as one, one fix per root cause, conflicts dropped with the fix kept named. The
whole command, shards and verification, is tests/e2e/test_merge_e2e.py's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.apply.rewrite import unified_diff
from pytest_caretaker.ci.merge import Fix, load
from pytest_caretaker.ci.problems import hunks
from pytest_caretaker.ci.shard_diffs import patched
from pytest_caretaker.results import FileChange

BEFORE = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n\n\ndef one():\n    return 2\n"


def diff(before: str, after: str, path: str = "calc.py") -> str:
    return unified_diff(FileChange(path, before.encode(), after.encode())).decode()


@pytest.mark.parametrize(
    "after",
    [
        BEFORE.replace("(len(xs) + 1)", "len(xs)"),
        BEFORE.replace("return 2", "return 1"),
        BEFORE.replace("(len(xs) + 1)", "len(xs)").replace("return 2", "return 1"),
        BEFORE.rstrip("\n"),  # no newline at the end now
        BEFORE + "\n\ndef two():\n    return 2\n",
    ],
    ids=["first-lines", "last-lines", "two-hunks", "no-newline", "added"],
)
def test_a_diff_is_rebuilt_into_the_file_it_made(after: str) -> None:
    (file,) = hunks(diff(BEFORE, after))
    assert patched(BEFORE, file["hunks"], "calc.py") == after


def test_a_diff_whose_context_is_not_there_does_not_apply() -> None:
    (file,) = hunks(diff(BEFORE, BEFORE.replace("return 2", "return 1")))
    with pytest.raises(ValueError, match=r"calc\.py differs from the shard's at line"):
        patched(BEFORE.replace("return 2", "return 3"), file["hunks"], "calc.py")


def problem(test: str, after: str, ref: str, tokens: int = 0, *more: str) -> dict[str, Any]:
    text = diff(BEFORE, after)
    tests = [{"id": t, "outcome": "healed"} for t in (test, *more)]
    return {
        "outcome": "healed",
        "tests": tests,
        "reason": "",
        "category": "",
        "repairer": "builtin",
        "fallbacks": [],
        "explanation": "",
        "notices": [],
        "patched": [ref],
        "diff": text,
        "files": hunks(text),
        "commit": None,
        "attempts": 1,
        "candidates": 1,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "tokens": tokens,
        "cost": 0.0,
        "seconds": 0.1,
    }


def shard(where: Path, *problems: dict[str, Any], passed: tuple[str, ...] = ()) -> Path:
    where.mkdir(parents=True)
    data = {"schema": 1, "tool": {"name": "pytest-caretaker", "version": "0"}, "source": "pytest"}
    data |= {"time": "2026-12-03T00:00:00Z", "mode": "heal", "write": False, "models": []}
    data |= {"interrupted": False, "patch": None, "totals": {}, "notes": [], "passed": passed}
    (where / "last-run.json").write_text(json.dumps({**data, "problems": list(problems)}))
    return where


def test_fixes_alike_are_one_and_rival_fixes_of_one_definition_keep_the_best(
    tmp_path: Path,
) -> None:
    (tmp_path / "calc.py").write_text(BEFORE)
    right = BEFORE.replace("(len(xs) + 1)", "len(xs)")
    rival = BEFORE.replace("sum(xs) / (len(xs) + 1)", "sum(xs) / len(xs) if xs else 0")
    other = BEFORE.replace("return 2", "return 1")
    folders = [
        shard(tmp_path / "a", problem("test_a.py::t1", right, "calc.py::mean", 0, "test_a.py::t2")),
        shard(tmp_path / "b", problem("test_b.py::t", right, "calc.py::mean", 0)),
        shard(tmp_path / "c", problem("test_c.py::t", rival, "calc.py::mean", 500)),
        shard(tmp_path / "d", problem("test_d.py::t", other, "calc.py::one")),
    ]

    merged = load(tmp_path, folders)

    assert [sorted(fix.tests) for fix in merged.kept] == [
        ["test_a.py::t1", "test_a.py::t2", "test_b.py::t"],
        ["test_d.py::t"],
    ]
    ((dropped, why),) = merged.dropped
    assert dropped.tests == ["test_c.py::t"]
    assert why == "another fix of calc.py::mean is kept: it heals 3 tests (test_a.py::t1)"
    assert merged.combined()["calc.py"] == right.replace("return 2", "return 1").encode()


def test_two_fixes_of_one_line_differently_keep_the_one_that_heals_more(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(BEFORE)
    one = BEFORE.replace("return 2", "return 1")
    two = BEFORE.replace("return 2", "return 0")
    folders = [
        shard(tmp_path / "a", problem("test_a.py::t", one, "calc.py::one")),
        shard(tmp_path / "b", problem("test_b.py::t", two, "calc.py::two", 0, "test_b.py::u")),
    ]

    merged = load(tmp_path, folders)

    assert [fix.tests for fix in merged.kept] == [["test_b.py::t", "test_b.py::u"]]
    assert merged.dropped[0][1].startswith("another fix of the same lines is kept: it heals 2")


def test_a_diff_of_another_commit_is_dropped_with_where(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(BEFORE.replace("return 2", "return 3"))
    folder = shard(
        tmp_path / "a",
        problem("test_a.py::t", BEFORE.replace("return 2", "return 1"), "calc.py::one"),
    )

    merged = load(tmp_path, [folder])

    assert merged.kept == [] and isinstance(merged.dropped[0][0], Fix)
    assert merged.dropped[0][1].startswith("its diff does not apply here: calc.py differs")


def test_a_folder_without_last_run_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_caretaker", "merge", str(tmp_path / "nowhere")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "last-run.json does not exist" in done.stderr


def test_an_unsure_fix_is_kept_in_the_patch_but_never_written(tmp_path: Path) -> None:
    from pytest_caretaker.ci.merge_out import fixes_to_write

    (tmp_path / "calc.py").write_text(BEFORE)
    sure = problem("test_a.py::t", BEFORE.replace("return 2", "return 1"), "calc.py::one")
    doubtful = problem("test_b.py::t", BEFORE.replace("(len(xs) + 1)", "len(xs)"), "calc.py::mean")
    doubtful["outcome"] = doubtful["tests"][0]["outcome"] = "unsure"
    merged = load(tmp_path, [shard(tmp_path / "a", sure), shard(tmp_path / "b", doubtful)])

    assert len(merged.kept) == 2 and [fix.unsure for fix in merged.kept] == [False, True]
    (written,) = fixes_to_write(merged)
    assert written.nodeids == ("test_a.py::t",)
    assert [c.after for c in written.changes] == [BEFORE.replace("return 2", "return 1").encode()]
