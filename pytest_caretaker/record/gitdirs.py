"""The project's git folders, and their config files as candidate code is shown them.

A project may read its own repository when it is imported: its version from ``.git/HEAD`` and
the refs (old versions of tqdm, many ``_version.py`` files), a remote's URL from ``.git/config``.
So the sandbox's view (verify/view.py) shows the repository's folders read-only, and each config
file of theirs as a copy without credentials (``without_credentials``): a token in a remote's
URL, a ``[credential]`` section, an ``extraheader`` (``AUTHORIZATION: basic …``), a secret-named
key. A file named after credentials (``helper = store --file .git/credentials``) is shown empty.
Standard library only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pytest_caretaker.record.secrets import env_secret_name

#: How deep submodules' folders (``modules/a/modules/b``) are searched for their configs.
MAX_DEPTH = 4
#: A URL's user information: ``https://user:token@host`` (the scheme is kept, the rest goes).
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/@\s\"']*@")
_HEADER = re.compile(r'^\s*\[\s*(?P<name>[^\]\s"]+)(?:\s+"(?:[^"\\\n]|\\.)*")?\s*\]')
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9\-]*)\s*(?:=|$)")


def git_dirs(root: Path) -> list[Path]:
    """The git folders of the repository root is in: its ``.git`` (root's or a parent's), or for
    a linked worktree or a submodule (a ``.git`` file: ``gitdir: …``) that folder and the
    repository's common one (its main checkout's ``.git``)."""
    for folder in (root, *root.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return [dot]
        if dot.is_file():
            line = _read(dot).strip()
            if not line.startswith("gitdir:"):
                return []
            gitdir = (folder / line.removeprefix("gitdir:").strip()).resolve()
            common = _read(gitdir / "commondir").strip()
            return [gitdir, *([(gitdir / common).resolve()] if common else [])]
    return []


def config_files(dirs: list[Path]) -> list[Path]:
    """The config files of the git folders that exist: each one's ``config`` and
    ``config.worktree``, its worktrees' and its submodules' (``modules/…/config``)."""
    found: list[Path] = []
    for folder in dirs:
        found += [folder / "config", folder / "config.worktree"]
        found += sorted((folder / "worktrees").glob("*/config.worktree"))
        found += _modules(folder / "modules", MAX_DEPTH)
    return [path for path in dict.fromkeys(found) if path.is_file()]


def credential_files(dirs: list[Path]) -> list[Path]:
    """The files directly in the git folders whose names say they hold credentials."""
    found: list[Path] = []
    for folder in dirs:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        found += [
            Path(entry.path)
            for entry in entries
            if "credential" in entry.name.lower() and entry.is_file(follow_symlinks=False)
        ]
    return found


def _modules(folder: Path, depth: int) -> list[Path]:
    if depth == 0 or not folder.is_dir():
        return []
    found: list[Path] = []
    for module in sorted(path for path in folder.iterdir() if path.is_dir()):
        found += [module / "config", module / "config.worktree"]
        found += _modules(module / "modules", depth - 1)
    return found


def without_credentials(text: str) -> str:
    """git's config text with no credential left: the user information of every URL (a
    remote's, a section's name: ``[url "https://tok@host/"]``), every ``[credential]`` section,
    every ``extraheader`` and every key whose name looks secret (``token``, ``smtpPass``) gone;
    the rest as it was, line by line."""
    kept: list[str] = []
    section, continued = "", False
    for line in text.splitlines(keepends=True):
        if continued:  # the value of a dropped key goes on
            continued = _continues(line)
            continue
        header = _HEADER.match(line)
        if header is not None:
            section = header.group("name").lower().split(".")[0]
            line, body = line[: header.end()], line[header.end() :]  # [core] bare = false
        else:
            body = line
        if section == "credential":
            continue
        if body.strip() and not _keeps(body):
            continued = _continues(body)
            body = "\n" if header is not None else ""
        kept.append(_USERINFO.sub(r"\1", line + body if header is not None else body))
    return "".join(kept)


def _keeps(line: str) -> bool:
    """Whether a key's line may be shown: not an extra header, not a secret-named key."""
    key = _KEY.match(line)
    name = key.group(1).lower() if key is not None else ""
    return not (name == "extraheader" or (name and env_secret_name(name)))


def _continues(line: str) -> bool:
    return line.rstrip("\r\n").endswith("\\")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return ""
