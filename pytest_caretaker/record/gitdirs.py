"""The project's git folders, and their config files as candidate code is shown them.

A project may read its own repository when it is imported: its version from ``.git/HEAD`` and
the refs (old versions of tqdm, many ``_version.py`` files), a remote's URL from ``.git/config``.
So the sandbox's view (verify/view.py) shows the repository's folders read-only, and each config
file of theirs as a copy without credentials (``without_credentials``): a token in a remote's
URL, a ``[credential]`` section, an ``extraheader`` (``AUTHORIZATION: basic …``), a secret-named
key. A file named after credentials (``helper = store --file .git/credentials``) is shown empty,
and the reflogs are hidden (a fetch's or a pull's command line, a URL with a token, is kept
there).
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
    found = [
        path
        for folder in _all(dirs)
        for path in (folder / "config", folder / "config.worktree")
        if path.is_file()
    ]
    return list(dict.fromkeys(found))


def log_folders(dirs: list[Path]) -> list[Path]:
    """The reflog folders (``logs/``) of the git folders, their worktrees' and submodules':
    a reflog keeps the command line of a fetch or a pull, a URL with a token among it."""
    return list(
        dict.fromkeys(folder / "logs" for folder in _all(dirs) if (folder / "logs").is_dir())
    )


def _all(dirs: list[Path]) -> list[Path]:
    """The git folders, and those of their worktrees (``worktrees/*``) and submodules."""
    found: list[Path] = []
    for folder in dirs:
        found += [folder, *sorted(p for p in (folder / "worktrees").glob("*") if p.is_dir())]
        found += _modules(folder / "modules", MAX_DEPTH)
    return found


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
    """The submodules' git folders under a ``modules`` folder, theirs in turn, depth deep."""
    if depth == 0 or not folder.is_dir():
        return []
    found: list[Path] = []
    for module in sorted(path for path in folder.iterdir() if path.is_dir()):
        found += [module, *_modules(module / "modules", depth - 1)]
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
