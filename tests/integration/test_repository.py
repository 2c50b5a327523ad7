"""Repository, on real git repositories under tmp_path; setup and checks run the git command."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from pytest_caretaker.write.repository import GitError, Repository

NAME = "Test Person"
EMAIL = "test.person@example.com"


def git(repo: Path, *args: str, check: bool = True) -> str:
    """Run git in repo; its standard output as text."""
    return git_bytes(repo, *args, check=check).decode("utf-8")


def git_bytes(repo: Path, *args: str, check: bool = True) -> bytes:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr.decode()}")
    return done.stdout


def init(path: Path, identity: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if identity:
        git(path, "config", "user.name", NAME)
        git(path, "config", "user.email", EMAIL)
    return path


def commit_files(repo: Path, files: dict[str, str], message: str = "setup") -> str:
    """Write files, commit them (with a setup identity if none is configured); HEAD's id."""
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "--", *files)
    git(
        repo,
        "-c",
        "user.name=Setup",
        "-c",
        "user.email=setup@example.com",
        "commit",
        "-q",
        "-m",
        message,
    )
    return head(repo)


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def message_of(repo: Path, rev: str = "HEAD") -> str:
    """The commit message exactly as stored."""
    raw = git(repo, "cat-file", "commit", rev)
    return raw.split("\n\n", 1)[1]


def files_in(repo: Path, rev: str = "HEAD") -> list[str]:
    return git(repo, "show", "--name-only", "--format=", rev).split()


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """No global or system git configuration (signing, hooks path, identity) reaches the tests."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in (
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = init(tmp_path / "repo")
    commit_files(path, {"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n"})
    return path


@pytest.fixture
def repository(repo: Path) -> Repository:
    found = Repository.find(repo)
    assert found is not None
    return found


# -- find ------------------------------------------------------------------------------------


def test_find_outside_git_is_none(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert Repository.find(plain) is None


def test_find_from_a_subdirectory(repo: Path) -> None:
    sub = repo / "pkg" / "deep"
    sub.mkdir(parents=True)
    found = Repository.find(sub)
    assert found is not None
    assert found.top == repo.resolve()
    assert found.relative(sub / "x.py") == "pkg/deep/x.py"


# -- unclean ---------------------------------------------------------------------------------

CHANGED = "had uncommitted changes before the run"
UNTRACKED = "is not tracked by git"
IGNORED = "is ignored by git"


def test_unclean_reasons(repo: Path, repository: Repository) -> None:
    commit_files(
        repo,
        {
            "clean.py": "x\n",
            "unstaged.py": "x\n",
            "staged.py": "x\n",
            "with space.py": "x\n",
            ".gitignore": "*.log\n",
        },
    )
    (repo / "unstaged.py").write_text("changed\n")
    (repo / "staged.py").write_text("changed\n")
    git(repo, "add", "staged.py")
    (repo / "untracked.py").write_text("new\n")
    (repo / "ignored.log").write_text("log\n")
    (repo / "with space.py").write_text("changed\n")
    (repo / "new file.py").write_text("new\n")
    names = [
        "clean.py",
        "unstaged.py",
        "staged.py",
        "untracked.py",
        "ignored.log",
        "with space.py",
        "new file.py",
    ]
    reasons = repository.unclean([repo / name for name in names])
    assert reasons == {
        repo / "unstaged.py": CHANGED,
        repo / "staged.py": CHANGED,
        repo / "untracked.py": UNTRACKED,
        repo / "ignored.log": IGNORED,
        repo / "with space.py": CHANGED,
        repo / "new file.py": UNTRACKED,
    }


def test_unclean_of_nothing_is_empty(repository: Repository) -> None:
    assert repository.unclean([]) == {}


def test_unclean_from_a_subdirectory_root(repo: Path) -> None:
    commit_files(repo, {"pkg/mod.py": "x\n", "pkg/other.py": "x\n"})
    (repo / "pkg" / "mod.py").write_text("changed\n")
    found = Repository.find(repo / "pkg")
    assert found is not None
    pkg = repo / "pkg"
    assert found.unclean([pkg / "mod.py", pkg / "other.py"]) == {pkg / "mod.py": CHANGED}


def test_unclean_staged_rename_does_not_confuse_the_parser(
    repo: Path, repository: Repository
) -> None:
    # The old name's field, read as an entry of its own, would say "b_clean.py" is unclean.
    old = "xy b_clean.py"
    commit_files(repo, {old: "old = 1\n", "b_clean.py": "x\n", "c_dirty.py": "x\n"})
    git(repo, "mv", old, "a_new.py")
    (repo / "c_dirty.py").write_text("changed\n")
    names = ["a_new.py", old, "b_clean.py", "c_dirty.py"]
    status = git(repo, "status", "--porcelain=v1", "-z", "--", *names)
    assert f"R  a_new.py\0{old}\0" in status  # the case under test really happens
    reasons = repository.unclean([repo / name for name in names])
    assert reasons == {repo / "a_new.py": CHANGED, repo / "c_dirty.py": CHANGED}


def test_unclean_work_tree_rename(repo: Path, repository: Repository) -> None:
    commit_files(repo, {"xy calc.py": "moved = 1\n", "calc.py": "clean = 1\n"})
    (repo / "xy calc.py").rename(repo / "renamed.py")
    git(repo, "add", "-N", "renamed.py")
    names = ["calc.py", "renamed.py", "xy calc.py"]
    status = git(repo, "status", "--porcelain=v1", "-z", "--", *names)
    assert " R renamed.py\0xy calc.py\0" in status
    reasons = repository.unclean([repo / name for name in names])
    # calc.py is clean; the old name "xy calc.py" read as an entry gives code "xy", name "calc.py".
    assert repo / "calc.py" not in reasons


def test_unclean_file_in_an_ignored_directory(repo: Path, repository: Repository) -> None:
    commit_files(repo, {".gitignore": "build/\n"})
    (repo / "build").mkdir()
    (repo / "build" / "gen.py").write_text("x = 1\n")
    assert repository.unclean([repo / "build" / "gen.py"]) == {repo / "build" / "gen.py": IGNORED}


# -- commit ----------------------------------------------------------------------------------


def test_commit_only_the_given_path(repo: Path, repository: Repository) -> None:
    before = head(repo)
    (repo / "a.py").write_text("a = 2\n")
    (repo / "b.py").write_text("b = 2  # staged\n")
    git(repo, "add", "b.py")
    (repo / "c.py").write_text("c = 2  # unstaged\n")
    staged = git_bytes(repo, "diff", "--cached", "--", "b.py")
    unstaged = git_bytes(repo, "diff", "--", "c.py")
    assert staged and unstaged

    sha = repository.commit([repo / "a.py"], "fix: heal a\n")

    assert re.fullmatch(r"[0-9a-f]{40}", sha)
    assert sha == head(repo)
    assert git(repo, "rev-parse", "HEAD~1").strip() == before
    assert files_in(repo) == ["a.py"]
    stat = git(repo, "show", "--stat", "--format=", "HEAD")
    assert "a.py" in stat and "b.py" not in stat and "c.py" not in stat
    assert git_bytes(repo, "diff", "--cached") == staged  # still staged, only it
    assert git_bytes(repo, "diff", "--", "c.py") == unstaged  # still unstaged
    assert git(repo, "diff", "--name-only").split() == ["c.py"]
    assert git(repo, "status", "--porcelain", "--", "a.py") == ""
    assert git(repo, "show", "HEAD:a.py") == "a = 2\n"
    assert git(repo, "show", "HEAD:b.py") == "b = 1\n"
    assert (repo / "b.py").read_text() == "b = 2  # staged\n"
    assert (repo / "c.py").read_text() == "c = 2  # unstaged\n"


def test_commit_keeps_the_message_exactly(repo: Path, repository: Repository) -> None:
    git(repo, "config", "commit.cleanup", "strip")  # a user's setting; it must not apply
    text = "fix: heal x\n\n# not a comment here\nbody line\n\nTrailer-Like: value\n"
    (repo / "a.py").write_text("a = 3\n")
    sha = repository.commit([repo / "a.py"], text)
    assert message_of(repo, sha) == text


def test_commit_skips_a_failing_pre_commit_hook(repo: Path, repository: Repository) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ntouch hook-ran\necho rewritten > a.py\ngit add a.py\nexit 1\n")
    hook.chmod(0o755)
    (repo / "a.py").write_text("a = 4\n")
    before = head(repo)
    sha = repository.commit([repo / "a.py"], "fix: heal a\n")
    assert sha != before
    assert not (repo / "hook-ran").exists()
    assert (repo / "a.py").read_text() == "a = 4\n"
    assert git(repo, "show", "HEAD:a.py") == "a = 4\n"


def test_commit_runs_no_hook_at_all(repo: Path, repository: Repository) -> None:
    hooks = repo / ".git" / "hooks"
    (hooks / "prepare-commit-msg").write_text('#!/bin/sh\necho "ADDED BY HOOK" >> "$1"\n')
    (hooks / "post-commit").write_text("#!/bin/sh\ntouch post-commit-ran\n")
    for hook in hooks.glob("*-commit*"):
        hook.chmod(0o755)
    (repo / "a.py").write_text("a = 5\n")
    sha = repository.commit([repo / "a.py"], "fix: heal a\n")
    assert message_of(repo, sha) == "fix: heal a\n"
    assert not (repo / "post-commit-ran").exists()


def test_commit_takes_paths_literally(repo: Path, repository: Repository) -> None:
    commit_files(repo, {"calc1.py": "user = 1\n", "calc[1].py": "fix = 1\n"})
    (repo / "calc1.py").write_text("user = 2  # the user's own work\n")
    (repo / "calc[1].py").write_text("fix = 2\n")
    repository.commit([repo / "calc[1].py"], "fix: heal calc\n")
    assert files_in(repo) == ["calc[1].py"]
    assert git(repo, "diff", "--name-only").split() == ["calc1.py"]


def test_commit_path_with_spaces(repo: Path, repository: Repository) -> None:
    commit_files(repo, {"my module.py": "x = 1\n"})
    (repo / "my module.py").write_text("x = 2\n")
    repository.commit([repo / "my module.py"], "fix: heal spaced\n")
    assert git(repo, "show", "--name-only", "--format=", "HEAD").strip() == "my module.py"
    assert git(repo, "status", "--porcelain") == ""


def test_commit_with_the_configured_identity(repo: Path, repository: Repository) -> None:
    (repo / "a.py").write_text("a = 6\n")
    repository.commit([repo / "a.py"], "fix: heal a\n")
    assert git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>") == (
        f"{NAME} <{EMAIL}>|{NAME} <{EMAIL}>\n"
    )


def test_commit_without_an_identity_uses_caretakers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("EMAIL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    bare = init(tmp_path / "anonymous", identity=False)
    commit_files(bare, {"a.py": "a = 1\n"})
    git(bare, "config", "user.useConfigOnly", "true")
    assert "user.name" not in git(bare, "config", "--list")
    # git itself finds no identity here: the fallback is what makes the commit possible.
    refused = subprocess.run(
        ["git", "-C", str(bare), "var", "GIT_AUTHOR_IDENT"], capture_output=True, check=False
    )
    assert refused.returncode != 0

    (bare / "a.py").write_text("a = 2\n")
    found = Repository.find(bare)
    assert found is not None
    sha = found.commit([bare / "a.py"], "fix: heal a\n")
    assert sha == head(bare)
    identity = "pytest-caretaker <pytest-caretaker@localhost>"
    assert git(bare, "log", "-1", "--format=%an <%ae>|%cn <%ce>") == f"{identity}|{identity}\n"
    assert "user.name" not in git(bare, "config", "--list")  # nothing written to the config


def test_commit_during_an_unfinished_merge_is_a_git_error(
    repo: Path, repository: Repository
) -> None:
    git(repo, "switch", "-q", "-c", "theirs")
    commit_files(repo, {"a.py": "a = 'theirs'\n"})
    git(repo, "switch", "-q", "main")
    ours = commit_files(repo, {"a.py": "a = 'ours'\n"})
    merge = subprocess.run(
        ["git", "-C", str(repo), "merge", "theirs"], capture_output=True, check=False
    )
    assert merge.returncode != 0
    assert (repo / ".git" / "MERGE_HEAD").exists()
    (repo / "b.py").write_text("b = 9\n")

    with pytest.raises(GitError) as raised:
        repository.commit([repo / "b.py"], "fix: heal b\n")

    text = str(raised.value)
    assert text
    assert "\n" not in text
    assert "Traceback" not in text and "GitCommandError" not in text
    assert "merge" in text
    assert head(repo) == ours
    assert (repo / ".git" / "MERGE_HEAD").exists()


# -- branch and switch -----------------------------------------------------------------------


def test_branch_is_the_current_branch(repo: Path, repository: Repository) -> None:
    assert repository.branch() == "main"
    git(repo, "switch", "-q", "-c", "feature/x")
    assert repository.branch() == "feature/x"


def test_branch_is_none_on_a_detached_head(repo: Path, repository: Repository) -> None:
    git(repo, "switch", "-q", "--detach", "HEAD")
    assert repository.branch() is None


def test_switch_creates_a_missing_branch_keeping_changes(
    repo: Path, repository: Repository
) -> None:
    start = head(repo)
    (repo / "a.py").write_text("a = 'work in progress'\n")
    repository.switch("heal/x")
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "heal/x"
    assert git(repo, "rev-parse", "heal/x").strip() == start
    assert git(repo, "rev-parse", "main").strip() == start
    assert (repo / "a.py").read_text() == "a = 'work in progress'\n"
    assert git(repo, "diff", "--name-only").split() == ["a.py"]


def test_switch_to_an_existing_branch(repo: Path, repository: Repository) -> None:
    git(repo, "switch", "-q", "-c", "other")
    other = commit_files(repo, {"b.py": "b = 'other'\n"})
    git(repo, "switch", "-q", "main")
    repository.switch("other")
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "other"
    assert head(repo) == other
    assert (repo / "b.py").read_text() == "b = 'other'\n"


def test_switch_to_the_current_branch_is_a_no_op(repo: Path, repository: Repository) -> None:
    reflog = git(repo, "reflog", "HEAD")
    (repo / "a.py").write_text("a = 'unsaved'\n")
    repository.switch("main")
    assert git(repo, "reflog", "HEAD") == reflog  # git switch would log "moving from main to main"
    assert repository.branch() == "main"
    assert (repo / "a.py").read_text() == "a = 'unsaved'\n"


def test_switch_refused_when_a_change_would_be_overwritten(
    repo: Path, repository: Repository
) -> None:
    git(repo, "switch", "-q", "-c", "other")
    commit_files(repo, {"a.py": "a = 'other'\n"})
    git(repo, "switch", "-q", "main")
    start = head(repo)
    (repo / "a.py").write_text("a = 'mine'\n")

    with pytest.raises(GitError) as raised:
        repository.switch("other")

    text = str(raised.value)
    assert text.startswith("cannot switch to branch other")
    assert len(text) > len("cannot switch to branch other: ")
    assert "\n" not in text
    assert repository.branch() == "main"
    assert head(repo) == start
    assert (repo / "a.py").read_bytes() == b"a = 'mine'\n"
