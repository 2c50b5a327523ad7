"""Regression-aware healing end to end (#35): real git repositories built commit by commit, real
pytest runs, no model. A test passes, unrelated commits come and go, one commit breaks a function
in two statements (no one-token edit heals it): caretaker names that commit, heals with its
partial revert, and keeps everything else that changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import git

STATS = """\
def mean(xs):
    total = sum(xs)
    count = len(xs)
    return total / count


def spread(xs):
    return max(xs) - min(xs)
"""
BROKEN = STATS.replace("sum(xs)", "sum(xs[1:])").replace("len(xs)\n", "len(xs) - 2\n")
TESTS = """\
from stats import mean, spread


def test_mean():
    assert mean([2, 4, 6]) == 4
    assert mean([5, 7, 9]) == 7


def test_spread():
    assert spread([1, 5, 3]) == 4
"""
BUILTIN = ("--heal-model", "builtin", "-p", "no:cacheprovider")


@pytest.fixture
def repo(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Ann Example")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "ann@example.com")
        monkeypatch.setenv(f"GIT_{role}_DATE", "2024-03-01T12:00:00+00:00")
    root = pytester.path
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".caretaker/\n__pycache__/\n")
    commit(root, "green", stats=STATS, test_stats=TESTS)
    return root


def commit(root: Path, message: str, **files: str) -> str:
    for name, text in files.items():
        (root / f"{name}.py").write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def break_it(root: Path, **also: str) -> str:
    """An unrelated commit, the breaking one (returned), another unrelated one."""
    commit(root, "add util", util="X = 1\n")
    sha = commit(root, "mean: skip the header row", stats=BROKEN, **also)
    commit(root, "util: Y", util="X = 1\nY = 2\n")
    return sha


def culprit_of(root: Path, nodeid: str) -> dict[str, object]:
    data = json.loads((root / ".caretaker" / "last-run.json").read_text())
    tests = [t for p in data["problems"] for t in p["tests"] if t["id"] == nodeid]
    return dict(tests[0]["culprit"])


def test_the_history_names_the_breaking_commit_and_its_revert_heals(
    pytester: pytest.Pytester, repo: Path
) -> None:
    pytester.runpytest("--heal", *BUILTIN).assert_outcomes(passed=2)  # recorded green
    breaking = break_it(repo)

    result = pytester.runpytest("--heal-write", *BUILTIN)

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "HEALED test_stats.py::test_mean",
            f'  broke in {breaking[:10]} "mean: skip the header row" (Ann Example, 2024-03-01;*',
            "*Partial revert by the built-in repairer (no model): revert lines 2-3 of stats.py "
            f'to before {breaking[:10]} "mean: skip the header row"*',
        ]
    )
    assert (repo / "stats.py").read_text() == STATS
    assert (repo / "util.py").read_text() == "X = 1\nY = 2\n"  # the unrelated commits stay
    assert f"Reverts-part-of: {breaking}" in git(repo, "log", "-1", "--format=%B")
    culprit = culprit_of(repo, "test_stats.py::test_mean")
    assert culprit["first_failing"]["sha"] == breaking  # type: ignore[index]
    assert culprit["found_by"] == "revert"


def test_without_history_the_bisection_finds_the_breaking_commit(
    pytester: pytest.Pytester, repo: Path
) -> None:
    breaking = break_it(repo)
    green = git(repo, "rev-parse", f"{breaking}~1").strip()

    result = pytester.runpytest("--heal", "--heal-bisect", *BUILTIN)

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "HEALED test_stats.py::test_mean",
            f'  broke in {breaking[:10]} "mean: skip the header row" (Ann Example, 2024-03-01; '
            f'found by bisection); last green {green[:10]} "add util"',
        ]
    )
    assert git(repo, "worktree", "list").count("\n") == 1  # the probes' worktrees are gone
    assert git(repo, "status", "--porcelain") == ""  # in memory: nothing written
    patch = (repo / ".caretaker" / "heal.patch").read_text()
    assert "-    total = sum(xs[1:])\n-    count = len(xs) - 2\n" in patch


def test_the_revert_of_a_test_the_breaking_commit_changed_is_refused(
    pytester: pytest.Pytester, repo: Path
) -> None:
    pytester.runpytest("--heal", *BUILTIN).assert_outcomes(passed=2)
    changed = TESTS.replace("mean([5, 7, 9]) == 7", "mean([1, 2, 3, 6]) == 3")
    breaking = break_it(repo, test_stats=changed)

    result = pytester.runpytest("--heal-write", *BUILTIN)

    result.stdout.fnmatch_lines(
        [
            "HEALED test_stats.py::test_mean",
            f'*The revert of test_stats.py ({breaking[:10]} "mean: skip the header row") is '
            "refused: the fix edits test code (test_stats.py), but tests are the specification*",
        ]
    )
    assert (repo / "test_stats.py").read_text() == changed
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["stats.py"]
