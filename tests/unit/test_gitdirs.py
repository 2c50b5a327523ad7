"""The project's git folders as candidate code sees them (record/gitdirs.py): readable, each
config file a copy without credentials."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pytest_caretaker.record.gitdirs import (
    config_files,
    credential_files,
    git_dirs,
    log_folders,
    without_credentials,
)

TOKEN = "ghp_Rk3vQ9xT2mL8wZ5nB7cD1fG4hJ6kP0sA"


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            f"\turl = https://me:{TOKEN}@github.com/o/p.git\n",
            "\turl = https://github.com/o/p.git\n",
        ),
        (f"\turl = https://x-access-token:{TOKEN}@host/p\n", "\turl = https://host/p\n"),
        (f"\tpushurl = ssh://git:{TOKEN}@host/p\n", "\tpushurl = ssh://host/p\n"),
        (f"\tproxy = http://user:{TOKEN}@proxy:3128\n", "\tproxy = http://proxy:3128\n"),
        ("\turl = git@github.com:o/p.git\n", "\turl = git@github.com:o/p.git\n"),
        ("\tfetch = +refs/heads/*:refs/remotes/origin/*\n", None),
        (f"\textraheader = AUTHORIZATION: basic {TOKEN}\n", ""),
        (f"\textraHeader = Authorization: bearer {TOKEN}\n", ""),
        (f"\ttoken = {TOKEN}\n", ""),
        (f"\toauthtoken = {TOKEN}\n", ""),
        (f"\tsmtpPass = {TOKEN}\n", ""),
        ("\tsmtpserver = smtp.example.com\n", None),
    ],
)
def test_a_line_is_kept_without_its_credential(line: str, shown: str | None) -> None:
    text = '[remote "origin"]\n' + line + "[core]\n\tbare = false\n"

    redacted = without_credentials(text)

    assert TOKEN not in redacted
    assert redacted == '[remote "origin"]\n' + (line if shown is None else shown) + (
        "[core]\n\tbare = false\n"
    )


def test_credential_sections_and_their_continued_values_go_whole() -> None:
    text = (
        "[credential]\n\thelper = store --file .git/credentials\n\tusername = me\n"
        '[credential "https://example.com"]\n\tusername = you\n'
        "[http]\n\textraheader = Authorization: bearer abc \\\n  continued\n\tsslVerify = true\n"
        f'[url "https://me:{TOKEN}@github.com/"]\n\tinsteadOf = https://github.com/\n'
        f"[github] token = {TOKEN}\n"
        '[branch "main"]\n\tremote = origin\n'
    )

    assert without_credentials(text) == (
        "[http]\n\tsslVerify = true\n"
        '[url "https://github.com/"]\n\tinsteadOf = https://github.com/\n'
        "[github]\n"
        '[branch "main"]\n\tremote = origin\n'
    )


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_a_linked_worktree_shows_its_own_folder_and_the_main_checkouts(tmp_path: Path) -> None:
    main, linked = tmp_path / "main", tmp_path / "linked"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "start")
    git(main, "worktree", "add", "-q", str(linked))
    (main / ".git" / "credentials").write_text(f"https://me:{TOKEN}@host\n")

    (linked / "sub").mkdir()  # pytest's rootdir may be a folder of the checkout

    dirs = git_dirs(linked / "sub")

    assert dirs == [(main / ".git" / "worktrees" / "linked").resolve(), (main / ".git").resolve()]
    assert (main / ".git" / "config").resolve() in config_files(dirs)
    assert credential_files(dirs) == [(main / ".git" / "credentials").resolve()]
    assert git_dirs(main) == [main / ".git"]
    assert git_dirs(tmp_path) == []


def test_a_submodules_config_and_reflogs_are_found(tmp_path: Path) -> None:
    module = tmp_path / ".git" / "modules" / "vendored"
    module.mkdir(parents=True)
    (module / "config").write_text(f"[remote]\n\turl = https://me:{TOKEN}@host/v\n")
    (tmp_path / ".git" / "config").write_text("[core]\n")

    (module / "logs").mkdir()
    (tmp_path / ".git" / "logs").mkdir()

    found = config_files(git_dirs(tmp_path))

    assert found == [tmp_path / ".git" / "config", module / "config"]
    assert log_folders(git_dirs(tmp_path)) == [tmp_path / ".git" / "logs", module / "logs"]
