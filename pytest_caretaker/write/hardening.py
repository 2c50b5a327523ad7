"""caretaker's own git runs no program that configuration names.

A repository's ``.git/config`` is writable by anything that ran in the project — a test, a
candidate fix, a dependency — so a key that names a program (``core.fsmonitor``, ``gpg.program``
with ``commit.gpgSign``, a hook, a clean filter, ...) would otherwise run it in the user's process
the next time caretaker says ``git status`` or ``git commit``. Every git command caretaker runs gets
overrides through ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` (command scope:
they beat system, global, repository and worktree files and their includes, and reach a
submodule's git too; unlike ``-c`` they hold any filter name, even one with ``=`` in it).

``GIT_CONFIG_NOSYSTEM`` is not set: every key that could run something is overridden whatever
file it comes from, while the system file may hold what commits need to stay right
(``core.autocrlf`` on Windows, ``safe.directory`` on CI runners). The identity (``user.name``,
``user.email``) is read as configured.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

#: Overrides for every command: what would run a program, or touch the network, is off.
FIXED: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),  # no hook at all: <devnull>/pre-commit is never a file
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("diff.external", ""),  # empty: git fails to run it rather than run something
    ("diff.ignoreSubmodules", "all"),  # no git run in a submodule, whose config may differ
    ("submodule.recurse", "false"),
    ("core.sshCommand", ""),
    ("core.askPass", ""),
    ("credential.helper", ""),  # empty resets the list of helpers
    ("protocol.allow", "never"),  # no transport at all: no ssh, no lazy fetch, no proxy
    ("gc.auto", "0"),  # no background maintenance after a commit
    ("maintenance.auto", "false"),
)

#: Per named driver (``filter.<name>.clean``, ...): empty disables it, as if it had no command.
DRIVERS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "filter": (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")),
    "diff": (("textconv", ""), ("command", "")),
    "merge": (("driver", ""),),
}

#: The query whose output names every driver configured, in every scope (exit status 0 even
#: when there is none, so a failure is one and fails the command that needed it).
DRIVER_QUERY = ("config", "--null", "--list")

#: Environment for every command: programs named by the user's environment are not run either.
ENVIRONMENT: Mapping[str, str] = {
    "GIT_EDITOR": ":",  # git's own "no editor"
    "GIT_SEQUENCE_EDITOR": ":",
    "GIT_PAGER": "",  # empty: no pager (and --no-pager is passed)
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "",
    "SSH_ASKPASS": "",
    "GIT_SSH": "",
    "GIT_SSH_COMMAND": "",
    "GIT_PROXY_COMMAND": "",
    "GIT_EXTERNAL_DIFF": "",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_PROTOCOL_FROM_USER": "0",
}


def driver_names(listing: str) -> dict[str, set[str]]:
    """The drivers named in ``git config --null --list`` output, by section."""
    names: dict[str, set[str]] = {section: set() for section in DRIVERS}
    for entry in listing.split("\0"):
        key = entry.split("\n", 1)[0]
        section, _, rest = key.partition(".")
        name, dot, _ = rest.rpartition(".")
        if dot and name and section.lower() in names:
            names[section.lower()].add(name)
    return names


def overrides(listing: str = "") -> list[tuple[str, str]]:
    """Every override: the fixed ones, then each configured driver's."""
    pairs = list(FIXED)
    for section, names in driver_names(listing).items():
        for name in sorted(names):
            pairs += [(f"{section}.{name}.{key}", value) for key, value in DRIVERS[section]]
    return pairs


def environment(
    pairs: Iterable[tuple[str, str]], inherited: Mapping[str, str] = os.environ
) -> dict[str, str]:
    """ENVIRONMENT plus pairs as command-scope config, after any the environment already has
    (the later entry wins, so the user's own ``GIT_CONFIG_COUNT`` entries stay but lose)."""
    try:
        start = max(int(inherited.get("GIT_CONFIG_COUNT", "0")), 0)
    except ValueError:
        start = 0
    env = dict(ENVIRONMENT)
    count = start
    for key, value in pairs:
        env[f"GIT_CONFIG_KEY_{count}"] = key
        env[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env
