"""The eight ordinary placements of a secret that reached the prompt and the transcript (#30),
end to end: a project whose failing tests hold a secret each — in an ini file shown in an
assertion diff, passed to a fixture's object by position, split across three literals, in a
docstring, in a dataclass's ``pw`` field, in captured output, a UUID-shaped API key in a helper,
a parametrize value (so in the test id) — healed by a model that asks twice (the retry prompt
carries the verification's output too). No secret may be in any request, nor in any file under
``.caretaker/`` (transcripts, their names, the history).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import git, heal_args

from pytest_caretaker.testing import Scripted, ScriptedServer, tool_call

SETTINGS = """\
[database]
host = db.internal
user = app
password = Wint3r-Sun!42x
"""
APP = """\
import configparser
from dataclasses import dataclass


def read_settings(path):
    parser = configparser.ConfigParser()
    parser.read(path)
    return dict(parser["database"])


class Account:
    def __init__(self, name, password):
        self.name = name
        self.password = password

    def masked(self):
        return f"{self.name}:{self.password}"


def sign(payload, key):
    return f"{payload}.{key}"


def seeded_admin_can_log_in():
    return False


@dataclass
class Login:
    user: str
    pw: str


def normalised(login):
    return Login(login.user.title(), login.pw)


def connect(host, user, password):
    print(f"connecting to {host} as {user} with {password}")


class Client:
    def __init__(self, base_url, api_key):
        self.base_url = base_url
        self.api_key = api_key

    def url(self, path):
        return f"{self.base_url}/{path}?{self.api_key}"


def is_weak(candidate):
    return len(candidate) < 4
"""
TESTS = '''\
import os

import pytest

import app

HERE = os.path.dirname(os.path.abspath(__file__))
DB_PASSWORD = "Sup3r-S3cret-77"


def test_the_password_comes_from_the_environment():
    settings = app.read_settings(os.path.join(HERE, "settings.ini"))
    assert settings["password"] == "${DB_PASSWORD}"


@pytest.fixture
def account():
    return app.Account("ops", "Gl4cier-Fern-88")


def test_the_password_is_masked(account):
    assert account.masked() == "ops:***"


def test_a_signature_is_not_the_key():
    assert app.sign("payload", "Zq8vL2" + "mW9xKp4T" + "a7Rq3nB") == "payload.sig"


def test_the_admin_logs_in():
    """Log in with the seeded admin credentials: admin / Adm1n-Seed-2024."""
    assert app.seeded_admin_can_log_in()


def test_a_login_keeps_its_user():
    login = app.Login("bob", "it's-Bob's-pw9")
    assert app.normalised(login) == login


def test_connect_returns_a_connection():
    assert app.connect("db.internal", "app", DB_PASSWORD) is not None


def sandbox_client():
    token = "8c1e5f3a-2b7d-4e9f-a1c6-0d3b5e7f9a21"
    return app.Client("https://sandbox.example.com", token)


def test_the_client_builds_its_url():
    assert sandbox_client().url("users") == "https://sandbox.example.com/users"


@pytest.mark.parametrize("candidate", ["Tr0ub4dor&3x"])
def test_weak_passwords_are_rejected(candidate):
    assert app.is_weak(candidate)
'''
#: Placement -> what of it must reach neither a prompt nor a transcript.
PLACEMENTS = {
    "a password in an ini file shown in an assertion diff": ("Wint3r-Sun!42x",),
    "a password passed to a fixture's object by position": ("Gl4cier-Fern-88",),
    "a token split across three literals": ("Zq8vL2mW9xKp4Ta7Rq3nB", "mW9xKp4T"),
    "a password in a docstring": ("Adm1n-Seed-2024",),
    "a dataclass field pw in a repr": ("it's-Bob's-pw9",),
    "credentials in captured output": ("Sup3r-S3cret-77",),
    "a UUID-shaped API key in a function": ("8c1e5f3a-2b7d-4e9f-a1c6-0d3b5e7f9a21",),
    "a password as a parametrize value": ("Tr0ub4dor&3x",),
}
GIT_PASSWORD = "Br0wn-Fox-Jumps-42"
DOTENV_SECRET = "rk-Dotenv-Val-5531"
HISTORY_SECRET = "Gr3en-Apple-Tree"
#: A fix that applies and fixes none of them: each verification fails, its output goes back.
NO_FIX = "def is_weak(candidate):\n    return len(candidate) < 5\n"


def test_no_placement_reaches_a_prompt_or_a_transcript(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    (pytester.path / "settings.ini").write_text(SETTINGS)
    pytester.makepyfile(app=APP, test_secrets=TESTS)

    def respond(body: dict[str, Any]) -> Scripted:
        return tool_call("try this", [{"path": "app.py", "function": "is_weak", "code": NO_FIX}])

    llm.responder = respond

    result = pytester.runpytest(*heal_args(llm), "--heal-attempts", "2")

    result.stdout.fnmatch_lines(["*caretaker: 0 healed, 8 not healed*"])
    sent = json.dumps(llm.requests, ensure_ascii=False)
    for name in ("environment", "masked", "signature", "admin", "login_keeps", "connect"):
        assert name in sent  # each failure was asked about
    assert "still fails" in sent  # and a retry prompt, with the verification output
    kept = pytester.path / ".caretaker"
    written = "\n".join(
        f"{path.relative_to(kept)}\n{path.read_text(encoding='utf-8', errors='replace')}"
        for path in sorted(kept.rglob("*"))
        if path.is_file()
    )
    leaked = {
        placement: [s for s in secrets if s in sent or s in written]
        for placement, secrets in PLACEMENTS.items()
    }
    assert {k: v for k, v in leaked.items() if v} == {}
    assert "[redacted #" in sent


def test_what_a_candidate_reads_and_prints_reversed_is_redacted_in_the_retry_prompt(
    tmp_path: Path, llm: ScriptedServer
) -> None:
    """The project's .env, the shell's history and, from a linked worktree, the main checkout's
    .git/config (a token in the remote's URL), read by a candidate that may read them (the
    sandbox off) and sent back reversed through the verification's output."""
    main, work, home = tmp_path / "main", tmp_path / "work", tmp_path / "home"
    for folder in (main, home):
        folder.mkdir()
    (main / "lib.py").write_text("def f(x):\n    return x + 1\n")
    (main / "test_lib.py").write_text("import lib\n\n\ndef test_f():\n    assert lib.f(1) == 1\n")
    (main / ".gitignore").write_text(".caretaker/\n")
    git(main, "init", "-q")
    git(main, "add", ".")
    git(main, "commit", "-qm", "start")
    git(main, "remote", "add", "origin", f"https://bob:{GIT_PASSWORD}@git.example.org/o/r")
    git(main, "worktree", "add", "-q", str(work))
    (work / ".env").write_text(f"STRIPE_KEY={DOTENV_SECRET}\n")
    (home / ".bash_history").write_text(f"export DEPLOY_PASSWORD={HISTORY_SECRET}\nls\n")
    files = [str(work / ".env"), str(home / ".bash_history"), str(main / ".git" / "config")]
    reads = " + ".join(f"open({name!r}).read()" for name in files)
    leak = f"def f(x):\n    raise ValueError(({reads})[::-1])\n"
    llm.script(*(tool_call("try", [{"path": "lib.py", "function": "f", "code": leak}]),) * 2)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARETAKER_", "PYTEST_"))}

    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", *heal_args(llm), "--heal-attempts", "2"),
            *("--heal-sandbox", "off", "-p", "no:cacheprovider"),
        ],
        cwd=work,
        env={**env, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1", "CARETAKER_MODEL_KEEP": "0"},
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert "NOT HEALED test_lib.py::test_f" in done.stdout, done.stdout + done.stderr
    retry = json.dumps(llm.requests[1]["messages"][2:], ensure_ascii=False)
    assert "ValueError" in retry and "YEK_EPIRTS" in retry  # it was read, and sent back
    sent = json.dumps(llm.requests, ensure_ascii=False)
    written = "".join(p.read_text() for p in (work / ".caretaker").rglob("*.md"))
    secrets = (GIT_PASSWORD, DOTENV_SECRET, HISTORY_SECRET)
    forms = [form for secret in secrets for form in (secret, secret[::-1])]
    assert [form for form in forms if form in sent or form in written] == []
    assert "[redacted #" in retry


APP_MORE = """\
def connect(host, user, word):
    print(f"connecting to {host} as {user}/{word}")


class Mailer:
    def __init__(self, base, opener):
        self.base = base
        self.opener = opener

    def url(self):
        return f"{self.base}/v3?k={self.opener}"


def seeded_admin_can_log_in():
    return False


def accepted(value):
    return len(value) > 20
"""
TESTS_MORE = '''\
import pytest

import app

ACCOUNT = ("svc", "N0rth-Star-88x")
MAILGUN = "3f0c9b2e-6a1d-4c8e-9b7f-2d5e8a1c4f60"


def test_the_seeded_admin_logs_in():
    """Seeded admin: admin / Adm1n-Seed-7731 (see the fixtures)."""
    assert app.seeded_admin_can_log_in()


def test_connect_returns_a_connection():
    assert app.connect("db.internal", *ACCOUNT) is not None


def test_the_mailer_builds_its_url():
    assert app.Mailer("https://api.mailgun.example", MAILGUN).url() == "https://api.mailgun.example"


@pytest.mark.parametrize("value", ["Tr0ub4dor&3xy"])
def test_long_values_are_accepted(value):
    assert app.accepted(value)
'''
#: The four placements that still reached the prompt in an independent corpus (#46).
MORE_PLACEMENTS = {
    "a password in a docstring written as user / password": ("Adm1n-Seed-7731",),
    "credentials printed by the code under test as user/password": ("N0rth-Star-88x",),
    "a UUID-shaped key in a variable named after its service": (
        "3f0c9b2e-6a1d-4c8e-9b7f-2d5e8a1c4f60",
    ),
    "a password as a parametrize value under a neutral name": ("Tr0ub4dor&3xy",),
}
NO_FIX_MORE = "def accepted(value):\n    return len(value) > 30\n"


def test_four_more_placements_reach_no_prompt_and_no_transcript(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(app=APP_MORE, test_more=TESTS_MORE)

    def respond(body: dict[str, Any]) -> Scripted:
        fix = {"path": "app.py", "function": "accepted", "code": NO_FIX_MORE}
        return tool_call("try this", [fix])

    llm.responder = respond

    result = pytester.runpytest(*heal_args(llm), "--heal-attempts", "2")

    result.stdout.fnmatch_lines(["*caretaker: 0 healed, 4 not healed*"])
    sent = json.dumps(llm.requests, ensure_ascii=False)
    for name in ("seeded_admin", "connect_returns", "mailer", "long_values"):
        assert name in sent  # each failure was asked about
    assert "still fails" in sent
    kept = pytester.path / ".caretaker"
    written = "\n".join(
        f"{path.relative_to(kept)}\n{path.read_text(encoding='utf-8', errors='replace')}"
        for path in sorted(kept.rglob("*"))
        if path.is_file()
    )
    leaked = {
        placement: [s for s in secrets if s in sent or s in written]
        for placement, secrets in MORE_PLACEMENTS.items()
    }
    assert {k: v for k, v in leaked.items() if v} == {}
