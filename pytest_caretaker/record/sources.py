"""Sources: where the secrets of a project and of its user are written down, read before any
prompt is built.

The environment; the project's ``.env*`` files and config files (``*.ini``, ``*.cfg``, ``*.toml``,
``*.yaml``, ``*.json``, ``*.conf``, a few folders deep) under secret-like keys; git's config for
the project (a linked worktree's own, and its main checkout's: a token in a remote's URL or in an
extra header); ``~/.git-credentials``, ``~/.netrc``, ``~/.pgpass``, ``~/.pypirc``; and the shell's
history (``export API_KEY=…``, ``--password=…``, a URL with a password, a bearer token). Whatever
of them reaches a prompt — in a diff, in captured output, printed by a candidate, reversed — is
redacted by value (encodings.py lists the forms).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from pytest_caretaker.record.gitdirs import config_files, git_dirs
from pytest_caretaker.record.secrets import (
    MAX_DOTENV_FILES,
    MAX_FILE,
    env_secret_name,
    from_dotenv,
    from_env,
    from_netrc,
    from_pgpass,
    learnable,
    plausible,
    secret_shaped,
    unquote,
    url_password,
)

Learnt = Iterator[tuple[str, str]]
CONFIG_SUFFIXES = (".ini", ".cfg", ".toml", ".yaml", ".yml", ".json", ".conf", ".properties")
#: Folders never searched for config files (and none whose name starts with a dot).
SKIPPED = frozenset({"node_modules", "venv", "env", "__pycache__", "build", "dist", "htmlcov"})
NOT_CONFIG = frozenset({"package-lock.json", "composer.lock"})
MAX_DEPTH = 3
MAX_FOLDERS = 500
MAX_CONFIG_FILES = 100
MAX_LINES = 5_000

_PAIR = re.compile(
    r"""^\s*(?:export\s+)?["']?(?P<name>[A-Za-z_][\w.\-]*)["']?\s*[:=]\s*(?P<value>.*?)\s*,?\s*$"""
)
_JSON_PAIR = re.compile(r'"(?P<name>[A-Za-z_][\w.\-]*)"\s*:\s*"(?P<value>(?:[^"\\\n]|\\.){1,200})"')
_URL = re.compile(r"(?<![\w+.\-])[A-Za-z][\w+.\-]{0,30}://[^\s\"'<>]{1,500}")
_AUTH = re.compile(r"(?i)(?<![\w\-])(?:bearer|basic|token)[ \t]+([A-Za-z0-9._~+/=\-]{8,})")
_ASSIGNED = re.compile(
    r"""(?:^|[\s;&|(])(?:export\s+)?(?P<name>[A-Za-z_]\w*)=(?P<value>'[^'\n]*'|"[^"\n]*"|[^\s;&|)]+)"""
)
_FLAG = re.compile(
    r"""(?<![\w\-])--(?P<name>[A-Za-z][\w\-]*)[= ](?P<value>'[^'\n]*'|"[^"\n]*"|[^\s;&|)]+)"""
)


def from_project(root: Path, env: Mapping[str, str], home: Path | None = None) -> Learnt:
    """(value, what) for every secret the environment, the project's files, git's config and the
    user's credential files and shell history hold."""
    yield from from_env(env)
    yield from from_files(root, env, home)


def from_files(root: Path, env: Mapping[str, str], home: Path | None = None) -> Learnt:
    """(value, what) for every secret the project's files, git's config and the user's
    credential files and shell history hold (env says where some of them are)."""
    dotenvs, configs = project_files(root)
    for path in dotenvs:
        yield from from_dotenv(_read(path), _shown(path, root))
    for path in configs:
        yield from from_config(_read(path), _shown(path, root))
    for path in git_configs(root):
        yield from from_git_config(_read(path))
    home = home if home is not None else Path.home()
    yield from from_netrc(_read(Path(env.get("NETRC") or home / ".netrc")))
    yield from from_pgpass(_read(Path(env.get("PGPASSFILE") or home / ".pgpass")))
    yield from from_urls(_read(home / ".git-credentials"), ".git-credentials")
    yield from from_config(_read(home / ".pypirc"), ".pypirc")
    for path in history_files(env, home):
        yield from from_history(_read(path, tail=True), path.name)


def _read(path: Path, tail: bool = False) -> str:
    """The first (or, for a history, the last) MAX_FILE bytes of a file; "" when unreadable."""
    try:
        with path.open("rb") as handle:
            if tail:
                handle.seek(max(0, os.fstat(handle.fileno()).st_size - MAX_FILE))
            return handle.read(MAX_FILE).decode("utf-8", "replace")
    except OSError:
        return ""


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


def project_files(root: Path) -> tuple[list[Path], list[Path]]:
    """The project's .env files (not the templates of one) and its config files, found breadth
    first a few folders deep, outside hidden folders, virtual environments and builds."""
    templates = (".example", ".sample", ".template", ".dist")
    dotenvs: list[Path] = []
    configs: list[Path] = []
    todo, seen = [(root, 0)], 0
    while todo and seen < MAX_FOLDERS:
        folder, depth = todo.pop(0)
        seen += 1
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth < MAX_DEPTH and searched(entry):
                        todo.append((Path(entry.path), depth + 1))
                elif not entry.is_file(follow_symlinks=False) or name.endswith(templates):
                    continue
                elif name.startswith(".env"):
                    dotenvs.append(Path(entry.path))
                elif name.endswith(CONFIG_SUFFIXES) and name not in NOT_CONFIG:
                    configs.append(Path(entry.path))
            except OSError:
                continue
    return dotenvs[:MAX_DOTENV_FILES], configs[:MAX_CONFIG_FILES]


def searched(folder: os.DirEntry[str]) -> bool:
    """Whether a folder may hold the project's config: not hidden, a venv, a build or a cache."""
    name = folder.name
    if name.startswith(".") or name in SKIPPED:
        return False
    return not os.path.exists(os.path.join(folder.path, "pyvenv.cfg"))


def from_config(text: str, source: str) -> Learnt:
    """(value, what) for the values of secret-like keys in an ini, cfg, toml, yaml, properties or
    JSON file (password = …, "apiKey": "…", token: …), and every URL password in it."""
    pairs: list[tuple[str, str]] = []
    for line in text.splitlines()[:MAX_LINES]:
        match = _PAIR.match(line)
        if match is not None:
            pairs.append((match.group("name"), _config_value(match.group("value"))))
    for match in _JSON_PAIR.finditer(text[:MAX_FILE]):
        try:
            value = json.loads(f'"{match.group("value")}"')
        except ValueError:
            continue
        pairs.append((match.group("name"), value))
    for name, value in pairs:
        if learnable(name.rsplit(".", 1)[-1], value):
            yield value, f"value of {name} in {source}"
    yield from from_urls(text, source)


def _config_value(raw: str) -> str:
    """A config line's value: unquoted, without a trailing comment; "" for a table, a list, an
    anchor or a block (``{…}``, ``[…]``, ``&x``, ``|``)."""
    raw = raw.strip()
    if not raw or raw[0] in "{[&*|>":
        return ""
    if raw[0] in "'\"":
        return unquote(raw)
    return re.split(r"\s[#;]", raw, maxsplit=1)[0].strip()


def from_urls(text: str, source: str) -> Learnt:
    """(value, what) for each URL's password, and for a user name that is a token
    (https://ghp_…@github.com/…), in text."""
    for match in _URL.finditer(text[:MAX_FILE]):
        url = match.group(0)
        password = url_password(url)
        if password:
            yield password, f"password in a URL in {source}"
        user = url.split("://", 1)[1].split("@", 1)[0] if "@" in url else ""
        if user and ":" not in user and secret_shaped(user):
            yield user, f"token in a URL in {source}"


def git_configs(root: Path) -> list[Path]:
    """git's config files for the project at root: .git/config, or for a linked worktree (a .git
    file saying ``gitdir: …``) its own config and its main checkout's (gitdirs.py)."""
    return config_files(git_dirs(root))


def from_git_config(text: str) -> Learnt:
    """(value, what) for the tokens in git's config: a remote's URL, an extra header, a
    secret-like key."""
    yield from from_config(text, "git config")
    yield from _auth_tokens(text, "git config")


def history_files(env: Mapping[str, str], home: Path) -> list[Path]:
    named = [Path(env["HISTFILE"])] if env.get("HISTFILE") else []
    kept = [".bash_history", ".zsh_history", ".history", ".local/share/fish/fish_history"]
    return [*named, *(home / name for name in kept)]


def from_history(text: str, source: str) -> Learnt:
    """(value, what) for what a shell's history shows of secrets: ``export API_KEY=…``,
    ``PGPASSWORD=… psql``, ``--password=…``, ``--token …``, URLs with a password, and
    ``Authorization: Bearer …``."""
    for match in _ASSIGNED.finditer(text):
        value = unquote(match.group("value"))
        if env_secret_name(match.group("name")) and plausible(value):
            yield value, f"value of {match.group('name')} in {source}"
    for match in _FLAG.finditer(text):
        value = unquote(match.group("value"))
        if learnable(match.group("name"), value):
            yield value, f"--{match.group('name')} in {source}"
    yield from _auth_tokens(text, source)
    yield from from_urls(text, source)


def _auth_tokens(text: str, source: str) -> Learnt:
    """The credentials after Bearer, Basic or token that look like key material."""
    for match in _AUTH.finditer(text):
        if secret_shaped(match.group(1)):
            yield match.group(1), f"token in {source}"
