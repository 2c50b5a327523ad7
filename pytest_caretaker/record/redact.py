"""Redact: keep secrets out of everything that could leave the machine.

One Redactor per session knows the secret values of this run (environment variables and locals
whose names look like secrets) and recognises strings that look like keys wherever they appear
(tokens of known shapes, private-key blocks, passwords in URLs and assignments, long high-entropy
strings). Each is replaced by a marker that says what was removed, e.g.
``[redacted #1: value of $STRIPE_SECRET_KEY]``. A marker the model copies back into code is
restored to the original value when the fix is applied: the secret was in the user's code already.

Only the standard library is used; failures.py calls this while the run goes on.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: Words that make a name secret-looking: api_token, STRIPE_SECRET_KEY, passwordHash, …
SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "credential",
        "credentials",
        "creds",
        "auth",
        "authorization",
        "cookie",
        "private",
        "privatekey",
        "signature",
        "secretkey",
        "accesskey",
        "apitoken",
        "bearer",
        "dsn",
    }
)
#: Words before "key" that make it a lookup key, not a secret: sort_key, primary_key, …
LOOKUP_KEYS = frozenset(
    {"sort", "primary", "foreign", "cache", "lookup", "dict", "map", "hash", "index", "group"}
    | {"partition", "unique", "composite", "natural", "row", "column", "field", "order"}
)
#: Shortest value treated as a secret: "1" or "yes" in a variable called *_KEY is not one.
MIN_SECRET = 4

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")

#: Strings with a known shape, and what the marker calls them.
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-----BEGIN[A-Z ]*PRIVATE KEY-----.*?(?:-----END[A-Z ]*PRIVATE KEY-----|\Z)", re.S
        ),
        "private key block",
    ),
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"), "API key (sk-…)"),
    (re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"), "Stripe key"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), "GitHub token"),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), "GitHub token"),
    (re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), "AWS access key id"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), "Slack token"),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), "Google API key"),
    (
        re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        "JSON web token",
    ),
)
#: user:password@ in a URL: the password goes.
_URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.\-]*://[^\s:/@'\"]+:)(?P<value>[^\s@/'\"]+)@")
#: name = "value", name: 'value', "name": "value" — with a secret-looking name.
_QUOTED = re.compile(
    r"(?P<head>\b(?P<name>[A-Za-z_][\w.\-]*)['\"]?\s*[:=]\s*(?P<q>['\"]))(?P<value>[^'\"\n]+)(?P=q)"
)
#: NAME=value as in an environment dump or a shell line.
_BARE = re.compile(r"(?P<head>\b(?P<name>[A-Z][A-Z0-9_]*)=)(?P<value>[^\s'\"]+)")
#: ?name=value in a URL's query.
_QUERY = re.compile(r"(?P<head>[?&](?P<name>[A-Za-z_][\w\-]*)=)(?P<value>[^&\s'\"#]+)")
#: Candidates for the entropy test: long runs of key-alphabet characters.
_RUN = re.compile(r"[A-Za-z0-9+/_\-=]{24,}")
_HEX = re.compile(r"[0-9a-fA-F]{32,}")
_MARKER = re.compile(r"\[redacted #(\d+): [^\]]*\]")
_ANY_MARKER = re.compile(r"\[redacted #\d+: [^\]]*\]")


def secret_name(name: str) -> bool:
    """Whether a variable called name probably holds a secret (split into words, any case)."""
    listed = [word.lower() for word in _WORDS.findall(name)]
    if listed[-2:-1] and listed[-1] == "key" and listed[-2] in LOOKUP_KEYS:
        listed.pop()
    words = {*listed, name.lower().strip("_")}
    return not words.isdisjoint(SECRET_WORDS)


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def looks_random(token: str) -> bool:
    """A long token that reads like generated key material rather than words or a path: long
    hex, or mixed-case letters with digits at high entropy, not split into path-sized parts."""
    if _HEX.fullmatch(token):
        return len(set(token.lower())) >= 10
    if len(token) < 24:
        return False
    parts = re.split(r"[/_\-]", token)
    if len(parts) > 1 and max(len(part) for part in parts) < 16:
        return False  # a path or an identifier: words between separators
    classes = (str.isupper, str.islower, str.isdigit)
    if not all(any(test(c) for c in token) for test in classes):
        return False
    return entropy(token) >= 4.0


class Redactor:
    """Replaces secrets with markers; remembers what it replaced so a fix can put it back."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._known: dict[str, str] = {}  # secret value -> what it is
        self._numbers: dict[str, int] = {}  # secret value -> its marker number
        self._lock = threading.Lock()
        for name, value in sorted((env or {}).items()):
            if secret_name(name):
                self.remember(value, f"value of ${name}")

    def remember(self, value: object, what: str) -> None:
        """Redact this value wherever it appears from now on (and its repr, for strings); the
        items of a list, tuple, set or dict value too."""
        if isinstance(value, (list, tuple, set, frozenset)):
            for item in list(value)[:50]:
                self.remember(item, what)
            return
        if isinstance(value, dict):
            for item in list(value.values())[:50]:
                self.remember(item, what)
            return
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            return
        text = str(value)
        if len(text.strip()) < MIN_SECRET or _MARKER.search(text):
            return
        self._known.setdefault(text, what)
        if isinstance(value, str):
            quoted = repr(value)[1:-1]  # escaped as pytest shows it
            if quoted != text:
                self._known.setdefault(quoted, what)

    def learnt(self) -> list[tuple[str, str]]:
        """The values this redactor knows, and what each is (to hand to another process)."""
        return sorted(self._known.items())

    def _marker(self, value: str, what: str) -> str:
        with self._lock:  # repairs run in threads; a number must name one value
            number = self._numbers.setdefault(value, len(self._numbers) + 1)
        return f"[redacted #{number}: {what}]"

    def __call__(self, text: str) -> str:
        if not text:
            return text
        # Markers already in the text stay as they are: redacting twice changes nothing.
        pieces = _ANY_MARKER.split(text)
        if len(pieces) > 1:
            markers = [*_ANY_MARKER.findall(text), ""]
            return "".join(
                self(piece) + marker for piece, marker in zip(pieces, markers, strict=False)
            )
        for value in sorted(self._known, key=len, reverse=True):
            if value in text:
                text = text.replace(value, self._marker(value, self._known[value]))
        for pattern, what in _SHAPES:
            text = pattern.sub(self._whole(what), text)
        text = _URL_PASSWORD.sub(lambda m: self._swap(m, "password in a URL"), text)
        for pattern in (_QUOTED, _BARE, _QUERY):
            text = pattern.sub(self._if_secret_name, text)
        return _RUN.sub(self._if_random, text)

    def _whole(self, what: str) -> Callable[[re.Match[str]], str]:
        return lambda match: self._marker(match.group(0), what)

    def _swap(self, match: re.Match[str], what: str) -> str:
        """The match with its "value" group replaced by a marker (unless it is one already)."""
        value = match.group("value")
        if "[redacted #" in value:  # already (partly) redacted: the rest is not the secret
            return match.group(0)
        start, end = match.start("value") - match.start(), match.end("value") - match.start()
        whole = match.group(0)
        return whole[:start] + self._marker(value, what) + whole[end:]

    def _if_secret_name(self, match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("value")
        if not secret_name(name.rsplit(".", 1)[-1]) or len(value.strip()) < MIN_SECRET:
            return match.group(0)
        return self._swap(match, f"value of {name}")

    def _if_random(self, match: re.Match[str]) -> str:
        token = match.group(0)
        if not looks_random(token):
            return token
        return self._marker(token, "high-entropy string")

    def messages(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Chat messages with every text field redacted (content, tool call arguments)."""
        return [self._message(message) for message in messages]

    def _message(self, message: dict[str, Any]) -> dict[str, Any]:
        copy = dict(message)
        if isinstance(copy.get("content"), str):
            copy["content"] = self(copy["content"])
        calls = copy.get("tool_calls")
        if calls:
            copy["tool_calls"] = [
                {
                    **call,
                    "function": {
                        **call["function"],
                        "arguments": self(call["function"].get("arguments") or ""),
                    },
                }
                for call in calls
            ]
        return copy

    def restore(self, text: str) -> str:
        """Put back the values whose markers text holds (a fix that keeps a redacted literal)."""
        if "[redacted #" not in text:
            return text
        values = {number: value for value, number in self._numbers.items()}

        def back(match: re.Match[str]) -> str:
            return values.get(int(match.group(1)), match.group(0))

        return _MARKER.sub(back, text)
