"""What sandboxed candidate code sees of the environment: the redactor's secrets hidden, the rest
as it is."""

from __future__ import annotations

from pytest_caretaker.verify.runner import PLACEHOLDER, hidden_env


def test_secrets_are_hidden_by_the_redactors_rule_and_the_rest_kept() -> None:
    env = {
        "PGPASSWORD": "pg-1",
        "SERVICE_TOKEN": "tok-1",
        "SMTP_PASS": "smtp-1",
        "PWD": "/work",
        "SSH_AUTH_SOCK": "/tmp/agent.sock",
        "SORT_KEY": "name",
        "PATH": "/usr/bin",
    }

    seen = hidden_env(env)

    assert {k for k, v in seen.items() if v == PLACEHOLDER} == {
        "PGPASSWORD",
        "SERVICE_TOKEN",
        "SMTP_PASS",
    }
    assert seen["PATH"] == "/usr/bin" and seen["PWD"] == "/work"
