"""Sources (record/sources.py): the project's config and .env files, git's config (a linked
worktree's main checkout too) and the shell's history teach the redactor their secrets, which are
then redacted wherever they appear, reversed too (a candidate that prints one backwards)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import git

from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.record.sources import from_config, from_history, git_configs, project_files

TOKEN = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"


@pytest.mark.parametrize(
    ("name", "text", "secret"),
    [
        ("settings.ini", "[database]\nhost = db\npassword = Wint3r-Sun!42x\n", "Wint3r-Sun!42x"),
        ("setup.cfg", "[upload]\npassword: 'pypi-Pa55-w0rd' ; kept\n", "pypi-Pa55-w0rd"),
        ("app.toml", '[service]\napi_key = "8c1e5f3a-2b7d-4e9f-a1c6-0d3b5e7f9a21"\n', None),
        ("deploy.yaml", "db:\n  user: app\n  secret: s3cr3t-Yaml-9 # rotate\n", "s3cr3t-Yaml-9"),
        ("keys.json", '{"client": {"clientSecret": "cs-Json-Val-77", "id": 3}}', "cs-Json-Val-77"),
        ("db.conf", "url = postgres://app:pg-Conf-88@db/app\n", "pg-Conf-88"),
    ],
)
def test_a_config_file_teaches_its_secret_like_keys(
    tmp_path: Path, name: str, text: str, secret: str | None
) -> None:
    secret = secret or "8c1e5f3a-2b7d-4e9f-a1c6-0d3b5e7f9a21"
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / name).write_text(text)

    redactor = Redactor.for_project(tmp_path, {}, tmp_path / "home")

    assert secret not in redactor(f"E   AssertionError: assert '{secret}' == ''")


@pytest.mark.parametrize(
    "text",
    [
        "[tool.pytest.ini_options]\naddopts = -q\nkey = name\n",
        '{"key": "title", "password": "Password", "token": "${TOKEN}", "sort_key": "x1-Yz-2a"}',
        "auth:\n  enabled: true\n  session: default\npassword_hint: at least 8 characters\n",
    ],
)
def test_ordinary_config_teaches_nothing(text: str) -> None:
    assert list(from_config(text, "settings")) == []


def test_config_files_are_found_a_few_folders_deep_outside_hidden_and_virtual_ones(
    tmp_path: Path,
) -> None:
    for rel in ["a.ini", "conf/b.yaml", "x/y/z/c.json", "x/y/z/w/too-deep.json"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    for rel in [".hidden/d.ini", "node_modules/e.json", "venv/f.cfg", ".env.example"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "venv" / "pyvenv.cfg").write_text("")
    (tmp_path / "services" / ".env.local").parent.mkdir()
    (tmp_path / "services" / ".env.local").write_text("")

    dotenvs, configs = project_files(tmp_path)

    assert [p.relative_to(tmp_path).as_posix() for p in dotenvs] == ["services/.env.local"]
    assert sorted(p.relative_to(tmp_path).as_posix() for p in configs) == [
        "a.ini",
        "conf/b.yaml",
        "x/y/z/c.json",
    ]


def test_a_linked_worktree_reads_its_main_checkouts_git_config(tmp_path: Path) -> None:
    main, linked = tmp_path / "main", tmp_path / "linked"
    main.mkdir()
    git(main, "init", "-q")
    (main / "a.txt").write_text("a\n")
    git(main, "add", ".")
    git(main, "commit", "-qm", "start")
    git(main, "remote", "add", "origin", f"https://x-access-token:{TOKEN}@github.com/o/r.git")
    git(main, "config", "http.extraHeader", "Authorization: Bearer bt-8f3Kq2LmZx9Wv4")
    git(main, "worktree", "add", "-q", str(linked))
    assert (linked / ".git").is_file()

    assert (main / ".git" / "config").resolve() in [p.resolve() for p in git_configs(linked)]
    redactor = Redactor.for_project(linked, {}, tmp_path / "home")
    printed = f"remote: {TOKEN} {TOKEN[::-1]} bt-8f3Kq2LmZx9Wv4"
    assert redactor(printed).count("[redacted #") == 3


def test_the_projects_dotenv_is_redacted_reversed_too(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("STRIPE_KEY=rk-Dotenv-Val-5531\n")

    redactor = Redactor.for_project(tmp_path, {}, tmp_path / "home")

    shown = redactor(f"{'rk-Dotenv-Val-5531'[::-1]} and rk-Dotenv-Val-5531")
    assert "Dotenv" not in shown and "tnevoD" not in shown
    assert "reversed" in shown


def test_the_shells_history_teaches_what_it_shows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bash_history").write_text(
        "ls\nexport OPENAI_API_KEY=sk-hist-Aa11Bb22Cc33Dd44\n"
        "PGPASSWORD='pg hist pw' psql -h db\nmysql --password=My-Sql-Pw-77 app\n"
        "curl -H 'Authorization: Bearer hb-7Hq2LmZx9Wv4Kp' https://api\n"
        "git clone https://bob:clone-Pw-12@git.example.org/r.git\n"
    )

    redactor = Redactor.for_project(tmp_path, {}, home)

    for secret in ("sk-hist-Aa11Bb22Cc33Dd44", "pg hist pw", "My-Sql-Pw-77", "hb-7Hq2LmZx9Wv4Kp"):
        assert secret not in redactor(f"printed {secret} here")
    assert "clone-Pw-12" not in redactor("printed clone-Pw-12")


def test_ordinary_history_teaches_nothing() -> None:
    history = "cd src\npytest -q --maxfail=1\nexport PATH=$HOME/bin:$PATH\ngit log --format=%s\n"
    history += ": 1700000000:0;make TARGET=release\ncurl --basic https://example.org\n"

    assert list(from_history(history, ".zsh_history")) == []


def test_the_working_repository_is_not_a_secret(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    git(tmp_path, "remote", "add", "origin", "https://github.com/o/r.git")

    redactor = Redactor.for_project(tmp_path, {}, tmp_path / "home")

    assert redactor.learnt() == []
