"""Prose: the secrets a docstring or a printed line shows with no assignment to name them.

A docstring names a secret in words (``the admin credentials: admin / Adm1n-Seed-2024``), or only
by its shape: the ``user / password`` pair of a login (``Seeded admin: admin / Adm1n-Seed-7731``).
Code under test prints a login the same way (``connecting to db as app/N0rth-Star-88``, Oracle's
``scott/Tiger-2024@orcl``). The value of such a pair is taken for a password only when it is
shaped like a chosen one (secrets.password_shaped): ``src/App1.py``, ``text/html`` or
``actions/checkout@v4`` are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pytest_caretaker.record.secrets import password_shaped, secret_shaped, worth

_PROSE_NAME = re.compile(
    r"(?i)(?<![\w\-])(?:pass(?:word|wd|phrase|code)?s?|pw|pwd|secrets?|tokens?|api[ _\-]?keys?"
    r"|keys?|credentials?|creds|login)(?![\w\-])"
)
#: A dotted name of code in prose (``=fields.Str``, ``values=fields.Float``, ``<pkg.Schema>``):
#: not a secret.
_REFERENCE = re.compile(r"(?:\w*=|[<:])?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?>?")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n\s*\n")
_PROSE_WORD = re.compile(r"[^\s'\"`,;()\[\]]+")
#: user / password in a docstring: a user name, a slash with or without spaces, a word.
_PAIR = re.compile(
    r"(?<![\w/.\-])[A-Za-z][\w.\-@]{0,40}[ \t]?/[ \t]?(?P<value>[^\s/'\"`,;()]{1,200})"
)
#: A login printed as user/password: after "as", "login", "user", "account" or "credentials",
#: or followed by @host; a value without spaces, slashes or quotes. Linear: each run starts
#: where the character before cannot belong to it.
LOGIN = re.compile(
    r"(?i)(?:(?<![\w\-])(?:as|login|logon|user|account|credentials?|creds)[ \t]*[:=]?[ \t]+"
    r"(?P<user>[A-Za-z_][\w.\-]{0,40})/(?P<value>[^\s/@'\"`,;()\[\]{}<>]{4,200})"
    r"|(?<![\w/.\-:])(?P<user2>[A-Za-z_][\w.\-]{0,40})/(?P<value2>[^\s/@'\"`,;()\[\]{}<>]{4,200})"
    r"@(?=[A-Za-z0-9]))"
)


def from_prose(text: str) -> Iterator[str]:
    """The secret-shaped words that follow a secret's name in the same sentence of prose, and
    the password-shaped second words of user / password pairs."""
    for match in _PROSE_NAME.finditer(text):
        rest = text[match.end() : match.end() + 120]
        end = _SENTENCE_END.search(rest)
        sentence = rest[: end.start()] if end is not None else rest
        for word in _PROSE_WORD.findall(sentence)[:10]:
            word = word.rstrip(".:!?")
            if worth(word) and secret_shaped(word) and not _REFERENCE.fullmatch(word):
                yield word
    for match in _PAIR.finditer(text):
        word = match.group("value").rstrip(".:!?")
        if worth(word) and password_shaped(word):
            yield word


def logins(text: str) -> Iterator[tuple[int, int]]:
    """Where text shows the password of a login printed as user/password (LOGIN)."""
    if "/" not in text:  # most text has none: the search is skipped, not run to no end
        return
    for match in LOGIN.finditer(text):
        group = "value" if match.group("value") is not None else "value2"
        value = match.group(group).rstrip(".:!?")
        if password_shaped(value):
            yield match.start(group), match.start(group) + len(value)
