"""What sandboxed candidate code sees of the environment (verify/environment.py): the redactor's
secrets and URL passwords hidden, the ways into the user's session gone, the rest as it is; and
the mark of caretaker's own children (children.py), which no shell sets by accident."""

from __future__ import annotations

import pytest

from pytest_caretaker.children import WORKER_ENV, is_worker, worker_token
from pytest_caretaker.verify.environment import PLACEHOLDER, REMOVED, candidate_env

HIDDEN = f"postgres://app:{PLACEHOLDER}@db.internal:5432/app"


@pytest.mark.parametrize(
    ("name", "value", "seen"),
    [
        ("OPENAI_API_KEY", "sk-live-1", PLACEHOLDER),
        ("PGPASSWORD", "pg-1", PLACEHOLDER),
        ("SERVICE_TOKEN", "tok-1", PLACEHOLDER),
        ("SMTP_PASS", "smtp-1", PLACEHOLDER),
        ("DATABASE_URL", "postgres://app:S3cret-pw@db.internal:5432/app", HIDDEN),
        ("BROKER", "amqp://u:p%40ss@mq/vhost", f"amqp://u:{PLACEHOLDER}@mq/vhost"),
        ("UPSTREAMS", "POSTGRES://a:pw1@h1/x,redis://:pw2@h2", None),
        ("REDIS_URL", "redis://cache:6379/0", "redis://cache:6379/0"),
        ("HOMEPAGE", "https://user@example.org/", "https://user@example.org/"),
        ("PWD", "/work", "/work"),
        ("SORT_KEY", "name", "name"),
        ("PATH", "/usr/bin:/bin", "/usr/bin:/bin"),
        ("XDG_SESSION_TYPE", "wayland", "wayland"),
        *((name, "/run/user/1000/x", "removed") for name in sorted(REMOVED)),
    ],
)
def test_candidate_env_hides_secrets_and_removes_the_sessions_sockets(
    name: str, value: str, seen: str | None
) -> None:
    env = candidate_env({name: value, "LANG": "C.UTF-8"})

    assert env["LANG"] == "C.UTF-8"
    if seen == "removed":
        assert name not in env
    elif seen is None:  # two URLs with passwords in one value: neither password is left
        assert "pw1" not in env[name] and "pw2" not in env[name]
    else:
        assert env[name] == seen


def test_the_listed_ways_into_the_session_are_all_removed() -> None:
    listed = {"TMUX", "STY", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS"}
    listed |= {"DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR"}

    assert listed <= REMOVED


@pytest.mark.parametrize("value", ["1", "true", "yes", "on", " 1", "caretaker-child-", ""])
def test_a_value_a_shell_holds_by_accident_is_not_the_mark(value: str) -> None:
    assert not is_worker({WORKER_ENV: value})


def test_the_mark_is_a_per_process_token_of_its_own_shape() -> None:
    token = worker_token()

    assert token == worker_token()  # one per process, for all its children
    assert is_worker({WORKER_ENV: token})
    assert not is_worker({WORKER_ENV: token + "0"})
    assert not is_worker({WORKER_ENV: token.upper()})
    assert not is_worker({})
