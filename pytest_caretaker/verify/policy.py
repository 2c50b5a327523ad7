"""The sandbox's policy for one project: what its runs may see, read and write (sandbox.py
applies it in the child; this is the parent's side, which reads the project to make it).

A run sees the system, its interpreter and the project (view.py), and besides them:

- the repository's git folders (``.git``; a linked worktree's, and its main checkout's), so that
  a project that reads its version or a remote from git at import still imports; each of their
  config files reads as a copy without credentials, written read-only under the scratch folder
  (record/gitdirs.py), a file named after credentials reads as empty, and the reflogs
  (``logs/``: a fetch's or a pull's command line, a URL with a token) cannot be read;
- this machine's CA certificates (trust.py), so that a TLS context can be made;
- the project's ``.env`` files that its code does not read, as empty files (record/dotenvs.py).

It writes only under the scratch folder, and reads nothing of the credentials under ``$HOME``
and of the system's secrets (Landlock hides them, sandbox.restrict).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pytest_caretaker.record import dotenvs, gitdirs
from pytest_caretaker.verify import trust
from pytest_caretaker.verify.protocol import SandboxPolicy

#: Under $HOME: the files and folders that hold credentials. Candidate code cannot read them.
HOME_SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".docker",
    ".kube",
    ".vault-token",
    ".password-store",
    ".terraform.d",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".config/git/credentials",
    ".local/share/keyrings",
    ".cargo/credentials",
    ".cargo/credentials.toml",
)
#: Files of the system that hold secrets (root alone may read them; candidates run as root too):
#: the machine's TLS keys too, beside the certificates every run may read (trust.py).
SYSTEM_SECRETS = (
    *("/etc/shadow", "/etc/gshadow", "/etc/ssh", "/etc/sudoers", "/etc/sudoers.d"),
    *("/etc/ssl/private", "/etc/pki/tls/private"),
)


def for_project(root: Path, scratch: Path, network: bool, home: str | None = None) -> SandboxPolicy:
    """The policy for a project at root whose runs write under scratch."""
    home = home if home is not None else os.path.expanduser("~")
    git = gitdirs.git_dirs(root)
    hidden = [*SYSTEM_SECRETS, *map(str, gitdirs.log_folders(git))]
    if home and home != "~":
        hidden += [os.path.join(home, name) for name in HOME_SECRETS]
    blank = [*dotenvs.unread(root), *map(str, gitdirs.credential_files(git))]
    return {
        "scratch": str(scratch),
        "hidden": hidden,
        "network": network,
        "visible": [str(root), *map(str, git), *trust.locations(os.environ)],
        "blank": blank,
        "shown": _redacted_copies(gitdirs.config_files(git), scratch),
    }


def _redacted_copies(configs: Sequence[Path], scratch: Path) -> dict[str, str]:
    """Each git config file (its real path) and the copy without credentials that is shown in
    its place, written read-only under scratch."""
    shown: dict[str, str] = {}
    folder = scratch / "shown"
    for number, config in enumerate(configs):
        try:
            text = config.read_text(encoding="utf-8", errors="surrogateescape")
        except OSError:
            continue
        folder.mkdir(exist_ok=True)
        copy = folder / f"{number}-{config.name}"
        redacted = gitdirs.without_credentials(text)
        copy.write_text(redacted, encoding="utf-8", errors="surrogateescape")
        copy.chmod(0o444)
        shown[os.path.realpath(config)] = str(copy)
    return shown
