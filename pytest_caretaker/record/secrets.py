"""Secrets: which names hold one, which values could be one, and how credential files write them.

A value is learnt by name (a local, a key in a repr, an environment variable, a config key, an
argument: code.py) or from the files that hold credentials (sources.py finds them: the project's
``.env*`` and config files, git's config, ``~/.netrc``, ``~/.pgpass``, the shell's history). Only
values that could be a secret are learnt: "true", "8080" or a path would redact half of every
failure.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from itertools import pairwise
from urllib.parse import urlsplit

from pytest_caretaker.record.patterns import SHAPES, looks_random

#: Words that make a name secret-looking: api_token, STRIPE_SECRET_KEY, passwordHash, pw, …
SECRET_WORDS = frozenset(
    {"key", "apikey", "token", "secret", "secrets", "password", "passwd", "passphrase", "pwd"}
    | {"pw", "pass", "passcode", "credential", "credentials", "creds", "auth", "authorization"}
    | {"cookie", "private", "privatekey", "signature", "secretkey", "accesskey", "apitoken"}
    | {"bearer", "dsn", "session", "sessionid"}
)
#: Words before "key" that make it a lookup key, not a secret: sort_key, primary_key, …
LOOKUP_KEYS = frozenset(
    {"sort", "primary", "foreign", "cache", "lookup", "dict", "map", "hash", "index", "group"}
    | {"partition", "unique", "composite", "natural", "row", "column", "field", "order"}
)
#: Last words that make a name describe a secret rather than hold it: token_type, key_file, …
DESCRIPTORS = frozenset(
    {"name", "names", "type", "kind", "id", "ids", "count", "len", "length", "size", "file"}
    | {"path", "dir", "url", "uri", "prefix", "suffix", "env", "var", "format", "mode", "label"}
    | {"timeout", "ttl", "version", "algorithm", "alg", "cls", "class", "func", "fn", "policy"}
    | {"enabled", "required", "manager", "backend", "pattern", "regex", "param", "attr", "hint"}
    | {"rate", "expiry", "expires", "expiration", "lifetime", "endpoint", "host", "port", "field"}
    | {"error", "errors", "exception", "warning"}
)
#: Words that name a secret by themselves (strong_name).
STRONG = frozenset(
    {"password", "passwd", "passphrase", "passcode", "pwd", "pw", "pass", "secret", "token"}
    | {"apikey", "apitoken", "secretkey", "accesskey", "privatekey", "credential", "creds"}
    | {"bearer"}
)
#: Words before "key" that make it a secret: api_key, SECRET_KEY, signing_key, …
KEY_KINDS = frozenset(
    {"api", "secret", "access", "private", "signing", "encryption", "client", "master", "auth"}
    | {"license", "service", "app", "account", "admin", "root", "deploy", "ssh", "gpg"}
)
#: Substrings of an environment variable's name that make its value a secret.
ENV_WORDS = ("PASS", "PWD", "SECRET", "TOKEN", "KEY", "AUTH", "CRED", "COOKIE", "SESSION")
#: Variables with such a name that hold a path, a socket or a desktop's session kind.
ENV_NOT_SECRET = frozenset(
    {"PWD", "OLDPWD", "XAUTHORITY", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "SESSION_MANAGER"}
    | {"DESKTOP_SESSION", "GPG_AGENT_INFO", "KEYTIMEOUT", "SUDO_ASKPASS", "SSH_ASKPASS"}
)
#: Words that make a name an identifier's: a UUID under it is no key.
ID_WORDS = frozenset({"id", "ids", "uuid", "uuids", "guid", "guids", "uid", "pk", "ref", "ns"})
#: Values too common to redact wherever they appear.
COMMON = frozenset(
    {"true", "false", "none", "null", "nil", "yes", "no", "on", "off", "test", "tests", "testing"}
    | {"password", "passwd", "secret", "token", "basic", "bearer", "digest", "default", "local"}
    | {"localhost", "example", "dummy", "undefined", "enabled", "disabled", "x11", "wayland"}
)
#: Shortest value treated as a secret: "1" or "yes" in a variable called *_KEY is not one.
MIN_SECRET = 4
#: Most bytes read from one credentials file, and most .env files read.
MAX_FILE = 64_000
MAX_DOTENV_FILES = 20

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_WORDS_ONLY = re.compile(r"[A-Za-z]+(?:[-_.][A-Za-z]+)*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_\-]*")  # api_key, X-Api-Key: a name, not a value
#: ${NAME}, $NAME, {name}, {{ name }}, %(name)s, %s, <name>: a template, not a value.
#: A name, a dotted name or a file's name: Base64Encoder, os.Path3, Test_1.py.
_CODE_NAME = re.compile(r"[A-Za-z_][\w.]*|[\w.\-]+\.[A-Za-z]{1,5}")
_TEMPLATE = re.compile(r"\$\{|\$[A-Z_]|\{\{|\{[A-Za-z_]*\}|%\(|%s\b|<[A-Za-z_ \-]+>")
_DOTENV = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][\w.\-]*)\s*[=:]\s*(.*)$")


def secret_name(name: str) -> bool:
    """Whether a variable called name probably holds a secret (split into words, any case)."""
    listed = [word.lower() for word in _WORDS.findall(name)]
    if listed[-2:-1] and listed[-1] == "key" and listed[-2] in LOOKUP_KEYS:
        listed.pop()
    if len(listed) > 1 and listed[-1] in DESCRIPTORS:
        return False  # token_type, key_file: about a secret, not one
    words = {*listed, name.lower().strip("_")}
    return not words.isdisjoint(SECRET_WORDS)


def env_secret_name(name: str) -> bool:
    """Whether an environment variable holds a secret: its name contains PASS, PWD, SECRET,
    TOKEN, KEY, AUTH, CRED, COOKIE or SESSION (PGPASSWORD, SMTP_PASS), and it is not one of the
    variables that hold a path or a session kind (PWD, SSH_AUTH_SOCK, XDG_SESSION_TYPE)."""
    upper = name.upper()
    if upper in ENV_NOT_SECRET or upper.startswith("XDG_") or "ASKPASS" in upper:
        return False
    if not any(word in upper for word in ENV_WORDS):
        return False
    listed = [word.lower() for word in _WORDS.findall(name)]
    if listed[-2:] and listed[-1] == "key" and listed[-2:-1] and listed[-2] in LOOKUP_KEYS:
        return False
    return not (len(listed) > 1 and listed[-1] in DESCRIPTORS)


def plausible(value: str) -> bool:
    """Whether a value could be a secret: long enough, not a common word, not a small number."""
    text = value.strip()
    if len(text) < MIN_SECRET or text.lower() in COMMON:
        return False
    return not (text.isdigit() and len(text) < 6)  # a port, a timeout, a year


def strong_name(name: str) -> bool:
    """Whether a name speaks of a secret by itself (db_password, API_TOKEN, test_weak_passwords,
    apiKey), not only of a key, a session or auth, which name lookup keys and flags as often."""
    listed = [word.lower() for word in _WORDS.findall(name)]
    if any(word in STRONG or (word.endswith("s") and word[:-1] in STRONG) for word in listed):
        return True
    return any(a in KEY_KINDS and b in ("key", "keys") for a, b in pairwise(listed))


def secret_shaped(value: str) -> bool:
    """Whether a value reads as key material or a chosen password, whatever its name: a UUID, a
    key of a known shape, a long random run, or 8 characters or more without spaces that mix
    three of upper case, lower case, digits and symbols (Wint3r-Sun!42), and are not words
    joined by hyphens or a path."""
    text = value.strip()
    if UUID.fullmatch(text) or looks_random(text) or any(p.search(text) for p, _ in SHAPES):
        return True
    if (
        len(text) < 8
        or any(c.isspace() for c in text)
        or "/" in text
        or _WORDS_ONLY.fullmatch(text)
    ):
        return False
    kinds = (str.isupper, str.islower, str.isdigit, lambda c: not c.isalnum())
    return sum(any(kind(c) for c in text) for kind in kinds) >= 3


def password_shaped(value: str) -> bool:
    """Whether a value reads as a chosen password, with no name beside it to say so: shaped like a
    secret and mixing upper case, lower case and digits (Tr0ub4dor&3, N0rth-Star-88), and not a
    name (Base64Encoder), a file (Test_1.py), a date or a constant (2024-01-01T10:00Z, HTTP_404)."""
    text = value.strip()
    if any(c.isspace() for c in text) or _CODE_NAME.fullmatch(text) or not secret_shaped(text):
        return False  # "<Task object at 0x7f00>" is a repr, however random its letters
    return all(any(kind(c) for c in text) for kind in (str.isupper, str.islower, str.isdigit))


def id_name(name: str) -> bool:
    """Whether a name says its value identifies something (user_id, request_uuid, ns): a UUID
    under it is an identifier, not a key."""
    return not ID_WORDS.isdisjoint(word.lower() for word in _WORDS.findall(name))


def worth(value: str) -> bool:
    """Whether a literal could hold a secret rather than prose, a template, a path or the name of
    a secret: plausible, at most 200 characters, no spaces, not ``${DB_PASSWORD}``, ``{pw}``,
    ``<token>`` or ``api_key``."""
    text = value.strip()
    if not plausible(text) or len(text) > 200 or any(c.isspace() for c in text):
        return False
    if _TEMPLATE.search(text) or text.startswith(("/", "./", "~/")) or "://" in text:
        return False
    return not (_IDENTIFIER.fullmatch(text) and secret_name(text))


def learnable(name: str, value: str) -> bool:
    """Whether a value given to a name (an assignment, an argument, a config key) is a secret to
    learn: a secret's name, a value that could be one, and either a name that says so alone or a
    value shaped like one (key = "name" is a lookup; key = "8c1e…-…" a key)."""
    if not secret_name(name) or not worth(value):
        return False
    if secret_shaped(value):
        return True
    # A token of a lexer or a version (token='build', token = "rc") is a word, not a secret.
    return strong_name(name) and not (_token_name(name) and value.isalpha() and value.islower())


def _token_name(name: str) -> bool:
    """Whether name speaks of a secret only as a token (token, next_token), not a password."""
    listed = {word.lower() for word in _WORDS.findall(name)}
    return bool(listed & {"token", "tokens"}) and not listed & (STRONG - {"token"})


def url_password(value: str) -> str | None:
    """The password of a URL-shaped value (DATABASE_URL=postgres://app:pw@db/app)."""
    if "://" not in value or "@" not in value:
        return None
    try:
        return urlsplit(value.strip()).password
    except ValueError:
        return None


def from_env(env: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(value, what) for each secret in the environment, and the password of each URL in it."""
    for name, value in sorted(env.items()):
        if env_secret_name(name) and not _existing_path(value):
            yield value, f"value of ${name}"
        password = url_password(value)
        if password:
            yield password, f"password in ${name}"


def _existing_path(value: str) -> bool:
    return value.startswith("/") and "\n" not in value and os.path.exists(value)


def from_dotenv(text: str, source: str) -> Iterator[tuple[str, str]]:
    """(value, what) for the secrets of a .env file: secret-named variables, URL passwords."""
    for line in text.splitlines():
        match = _DOTENV.match(line)
        if match is None:
            continue
        name, value = match.group(1), unquote(match.group(2))
        if env_secret_name(name):
            yield value, f"value of {name} in {source}"
        password = url_password(value)
        if password:
            yield password, f"password in {name} in {source}"


def unquote(raw: str) -> str:
    """A value as a .env, a config or a shell writes it: the text inside its quotes, else up to a
    comment."""
    raw = raw.strip()
    if raw[:1] in ("'", '"') and raw.find(raw[0], 1) != -1:
        return raw[1 : raw.find(raw[0], 1)]  # a quoted value ends at its quote
    return raw.split(" #", 1)[0].strip()  # an unquoted value ends at a comment


def from_netrc(text: str) -> Iterator[tuple[str, str]]:
    """(value, what) for each password and account in a .netrc, and each login that is a token
    (a login of 16 characters or more with a digit: a token used as the user name)."""
    tokens = text.split()
    for key, value in pairwise(tokens):
        if key in ("password", "account"):
            yield value, f"{key} in .netrc"
        elif key == "login" and len(value) >= 16 and any(c.isdigit() for c in value):
            yield value, "login token in .netrc"


def from_pgpass(text: str) -> Iterator[tuple[str, str]]:
    """(value, what) for the password field of each line of a .pgpass
    (host:port:database:user:password, with \\: and \\\\ escaped)."""
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        fields = _pgpass_fields(line)
        if len(fields) >= 5:
            yield ":".join(fields[4:]), "password in .pgpass"


def _pgpass_fields(line: str) -> list[str]:
    fields, current, escaped = [], [], False
    for char in line:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            fields.append("".join(current))
            current = []
        else:
            current.append(char)
    return [*fields, "".join(current)]
