"""``caretaker merge`` (#49) end to end: a project's suite run as 3 shards (by test file, each in a
checkout of its own at another path, as CI runners are), each shard healed with the built-in
repairer, then merged and verified in a fourth checkout.

Two bugs: ``mean`` divides by one too many and fails in shards 1 and 2 (one fix, kept once, with
both shards' tests); ``is_adult`` fails in shard 3, whose only plausible fix (``>=``) breaks a test
that only shard 1 runs: it is dropped, and that test is named.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

PROJECT = {
    "calc.py": "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n",
    "people.py": "def is_adult(age):\n    return age > 18\n",
    "test_one.py": (
        "from calc import mean\nfrom people import is_adult\n\n\n"
        "def test_mean_of_two():\n    assert mean([1, 3]) == 2\n\n\n"
        "def test_eighteen_is_not_yet_adult_here():\n    assert not is_adult(18)\n"
    ),
    "test_two.py": (
        "from calc import mean\n\n\n"
        "def test_mean_of_three():\n    assert mean([1, 2, 3]) == 2\n\n\n"
        "def test_mean_of_one():\n    assert mean([4]) == 4\n"
    ),
    "test_three.py": (
        "from people import is_adult\n\n\n"
        "def test_eighteen_is_adult():\n    assert is_adult(18)\n\n\n"
        "def test_thirty_is_adult():\n    assert is_adult(30)\n"
    ),
    "pyproject.toml": "[tool.pytest.ini_options]\n",
    ".gitignore": "__pycache__/\n",
}


def checkout(where: Path) -> Path:
    where.mkdir(parents=True)
    for name, text in PROJECT.items():
        (where / name).write_text(text)
    return where


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_three_shards_merge_into_one_verified_patch(tmp_path: Path) -> None:
    uploaded: list[Path] = []
    for number, tests in enumerate(["test_one.py", "test_two.py", "test_three.py"], 1):
        shard = checkout(tmp_path / f"runner-{number}" / "work" / "project")
        pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--heal", tests]
        done = run(pytest, shard)
        assert done.returncode == 1, done.stdout + done.stderr  # each shard has a failure
        artifact = tmp_path / "artifacts" / f"shard-{number}"
        shutil.copytree(shard / ".caretaker", artifact)
        shutil.rmtree(tmp_path / f"runner-{number}")  # the runner is gone: no path of it counts
        uploaded.append(artifact)
    first = json.loads((uploaded[0] / "last-run.json").read_text())
    assert "test_one.py::test_eighteen_is_not_yet_adult_here" in first["passed"]
    # Shard 3's fix of is_adult passed shard 3's tests: it is in that shard's patch.
    assert "age >= 18" in (uploaded[2] / "heal.patch").read_text()

    merging = checkout(tmp_path / "merge-job" / "project")
    command = [sys.executable, "-m", "pytest_caretaker", "merge", *map(str, uploaded), "--verify"]
    done = run(command, merging)

    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout.splitlines()
    assert "caretaker: KEPT calc.py::mean: heals 3 tests (shard-1, shard-2)" in out, done.stdout
    dropped = [line for line in out if line.startswith("caretaker: DROPPED")]
    assert dropped == [
        "caretaker: DROPPED the fix for test_three.py::test_eighteen_is_adult (shard-3): it "
        "breaks test_one.py::test_eighteen_is_not_yet_adult_here, which passes without it "
        "(shard-1)"
    ], done.stdout
    patch = (merging / ".caretaker" / "heal.patch").read_text()
    assert patch.count("diff --git") == 1 and "+    return sum(xs) / len(xs)" in patch
    assert "is_adult" not in patch
    data = json.loads((merging / ".caretaker" / "last-run.json").read_text())
    assert data["source"] == "merge" and data["mode"] == "merge of 3 shards"
    outcomes = {t["id"]: t["outcome"] for p in data["problems"] for t in p["tests"]}
    assert outcomes == {
        "test_one.py::test_mean_of_two": "healed",
        "test_two.py::test_mean_of_three": "shared",  # shard 2 healed it with its sibling
        "test_two.py::test_mean_of_one": "healed",
        "test_three.py::test_eighteen_is_adult": "not healed",
    }
    summary = run([sys.executable, "-m", "pytest_caretaker", "summary"], merging)
    assert summary.returncode == 0 and "test_one.py::test_eighteen_is_not_yet_adult_here" in (
        summary.stdout
    )

    # --write: the kept fix written and committed on a branch, as --heal-write does.
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "push"]):
        git = ["git", "-c", "user.name=CI", "-c", "user.email=ci@example.com", *args]
        subprocess.run(git, cwd=merging, check=True, capture_output=True)
    written = run([*command, "--write", "--branch", "caretaker/merged"], merging)
    assert written.returncode == 0, written.stdout + written.stderr
    log = run(["git", "log", "--format=%s", "main..caretaker/merged"], merging).stdout
    assert log == "fix: heal test_one.py::test_mean_of_two (+2 more)\n", written.stdout
    after = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"], merging)
    assert "1 failed, 5 passed" in after.stdout, after.stdout  # only shard 3's test still fails
    status = run(["git", "status", "--porcelain"], merging).stdout
    assert status == "", status  # nothing but the commit: .caretaker/ is ignored


def test_shards_sharing_a_fix_memory_repair_one_bug_once(tmp_path: Path, llm: Any) -> None:
    # Shard 1 asks the model for mean's fix; shard 2, another test of the same bug in a checkout
    # of its own, finds it in the memory both reach and proves it again: no second request.
    from helpers import heal_args

    from pytest_caretaker.testing import tool_call

    fixed = "def mean(xs):\n    return sum(xs) / len(xs)\n"
    llm.script(tool_call("one too many", [{"path": "calc.py", "function": "mean", "code": fixed}]))
    env = {**os.environ, "CARETAKER_FIX_MEMORY": str(tmp_path / "shared-memory")}
    outcomes = []
    for number, tests in enumerate(["test_one.py", "test_two.py"], 1):
        shard = checkout(tmp_path / f"runner-{number}" / "project")
        pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *heal_args(llm), tests]
        done = subprocess.run(pytest, cwd=shard, env=env, capture_output=True, text=True)
        assert done.returncode == 1, done.stdout + done.stderr
        data = json.loads((shard / ".caretaker" / "last-run.json").read_text())
        outcomes.append(
            [(p["outcome"], sorted(t["id"] for t in p["tests"])) for p in data["problems"]]
        )

    assert len(llm.requests) == 1  # one repair of the bug, in the shard that met it first
    assert outcomes[0] == [("healed", ["test_one.py::test_mean_of_two"])]
    assert outcomes[1] == [
        ("from cache", ["test_two.py::test_mean_of_one", "test_two.py::test_mean_of_three"])
    ]
    assert (tmp_path / "shared-memory" / "fixes.json").is_file()


def test_a_test_that_fails_in_the_merge_job_anyway_is_not_held_against_a_fix(
    tmp_path: Path,
) -> None:
    # The shard had a service the merge job lacks (here: a variable); its test fails there with
    # or without the patch, so it says nothing of mean's fix.
    needs = "import os\nimport calc\n\n\ndef test_service():\n    assert os.environ.get('SVC')\n"
    shard = checkout(tmp_path / "runner" / "project")
    (shard / "test_service.py").write_text(needs)
    env = {**os.environ, "SVC": "up"}
    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--heal"]
    done = subprocess.run(
        [*pytest, "test_one.py", "test_service.py"], cwd=shard, env=env, capture_output=True
    )
    assert done.returncode == 1
    artifact = tmp_path / "shard-1"
    shutil.copytree(shard / ".caretaker", artifact)
    merging = checkout(tmp_path / "merge-job" / "project")
    (merging / "test_service.py").write_text(needs)
    env.pop("SVC")

    merge = [sys.executable, "-m", "pytest_caretaker", "merge", str(artifact), "--verify"]
    done = subprocess.run(merge, cwd=merging, env=env, capture_output=True, text=True)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "caretaker: KEPT calc.py::mean: heals 1 test (shard-1)" in done.stdout.splitlines()
    assert "DROPPED" not in done.stdout
