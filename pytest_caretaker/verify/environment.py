"""The environment of candidate code: what a process that runs a model's or a mutant's code sees.

One function for every front end: the workers of ``pytest --heal`` (verify/runner.py), the reruns
of ``caretaker run`` (run/repair.py), the replays of runtime healing (runtime/check.py), and the
remembered fixes each of them re-verifies through the same launchers. It is used wherever the
candidate runs in the sandbox; with ``--heal-sandbox off`` the user has chosen no wall, and the
candidate gets the environment the tests get.

Three kinds of variable are treated, each the way that keeps ordinary code running:

- A secret by its name (what the redactor calls one: ``OPENAI_API_KEY``, ``PGPASSWORD``) keeps
  its name and gets PLACEHOLDER as its value: code that reads it at import time
  (``os.environ["API_KEY"]``) runs on, as it would with a wrong key, instead of raising KeyError.
- A URL with a password in any variable (``DATABASE_URL=postgres://app:pw@db/app``) keeps its
  shape with PLACEHOLDER for the password, so that it still parses; a value whose password this
  cannot cut out is replaced whole.
- A way into the user's session (REMOVED: the tmux or screen server, the ssh and gpg agents, the
  D-Bus session bus, the X11 or Wayland display and its cookie, the runtime folder that holds
  their sockets) is removed, not replaced: tools then behave as they do with no agent, no
  multiplexer and no display (ssh asks for no agent, matplotlib picks a non-interactive backend),
  where a made-up socket path would make them fail in ways the tests never saw.

Standard library and the redactor's own rules only: the children's side imports nothing heavy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pytest_caretaker.record.patterns import URL_PASSWORD
from pytest_caretaker.record.secrets import env_secret_name, url_password

#: What candidate code sees instead of a secret's value (or a URL's password).
PLACEHOLDER = "caretaker-sandbox-hidden"
#: Variables that lead to a process or socket of the user's session; a candidate gets none.
REMOVED = frozenset(
    {"TMUX", "TMUX_PANE", "STY", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO"}
    | {"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR"}
)
#: The same rule as the redactor's, for a scheme in any case (POSTGRES://).
_URL_PASSWORD = re.compile(URL_PASSWORD.pattern, re.IGNORECASE)


def candidate_env(env: Mapping[str, str]) -> dict[str, str]:
    """env as candidate code sees it: secret-named values and URL passwords replaced by
    PLACEHOLDER, the variables of REMOVED left out, every other variable as it is."""
    seen: dict[str, str] = {}
    for name, value in env.items():
        if name in REMOVED:
            continue
        seen[name] = PLACEHOLDER if env_secret_name(name) else without_passwords(value)
    return seen


def without_passwords(value: str) -> str:
    """value with the password of each URL in it replaced by PLACEHOLDER."""
    if "://" not in value or "@" not in value:
        return value
    hidden = _URL_PASSWORD.sub(_placeholder, value)
    password = url_password(hidden)
    return PLACEHOLDER if password and password != PLACEHOLDER else hidden


def _placeholder(match: re.Match[str]) -> str:
    whole, start = match.group(0), match.start("value") - match.start()
    return whole[:start] + PLACEHOLDER + whole[match.end("value") - match.start() :]
