"""Encodings: the forms a secret takes on its way into a failure's text.

A password is rarely printed as itself alone: it goes into a URL (percent-encoded), a JSON body
(escaped), an ``Authorization: Basic`` header (base64 of ``user:password``) or a repr, and a
candidate that reads one may print it reversed. Base64 of
a longer text holds the secret's encoding at one of three alignments, so each alignment's stable
characters are learnt; a whole base64 token can also be decoded and searched (``decoded``).
A candidate that reads a file it may read can also print the value in pieces (``Sm7 p-r ela``),
reversed or not: ``squeezed`` is a text with only its letters and digits, in which such a value
is found by its own letters and digits.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import re
from urllib.parse import quote, quote_plus

#: Shortest base64 fragment learnt: shorter ones would match inside unrelated base64 text.
MIN_FRAGMENT = 6
#: Longest token decoded as base64 to look for a secret in it.
MAX_DECODE = 100_000

_ALPHABETS = ((base64.b64encode, "base64"), (base64.urlsafe_b64encode, "base64url"))
#: Shortest value (in letters and digits) found without its separators: a shorter one would
#: match across the words of ordinary text.
MIN_SQUEEZED = 8
_ALNUM = re.compile(r"[^\W_]+")
_NOT_ALNUM = re.compile(r"[\W_]+")


def forms(value: str) -> dict[str, str]:
    """Each encoded form of value, and the name of its encoding ("" for the value itself)."""
    found: dict[str, str] = {value: ""}
    escaped = json.dumps(value)[1:-1]
    candidates = [
        (repr(value)[1:-1], "escaped"),
        (escaped, "JSON-escaped"),
        (json.dumps(value, ensure_ascii=False)[1:-1], "JSON-escaped"),
        (repr(escaped)[1:-1], "JSON-escaped"),
        (quote(value, safe=""), "URL-encoded"),
        (quote(value), "URL-encoded"),
        (quote_plus(value), "URL-encoded"),
        (value.encode().hex(), "hex"),
        (value[::-1], "reversed"),  # the simplest encoding a candidate could print it in
    ]
    for form, name in candidates:
        found.setdefault(form, name)
    for form, name in base64_forms(value.encode()).items():
        found.setdefault(form, name)
    return found


def base64_forms(data: bytes) -> dict[str, str]:
    """The whole encodings of data, with and without padding, and at each of the three byte
    alignments the characters that depend on data alone (they appear in the base64 of any
    text that contains data at that alignment)."""
    found: dict[str, str] = {}
    for encode, name in _ALPHABETS:
        whole = encode(data).decode()
        found.setdefault(whole, name)
        found.setdefault(whole.rstrip("="), name)
        for offset in range(3):
            text = encode(b"\0" * offset + data + b"\0\0").decode()
            first = -(-8 * offset // 6)  # the first character made of data's bits only
            last = 8 * (offset + len(data)) // 6  # one past the last such character
            fragment = text[first:last]
            if len(fragment) >= MIN_FRAGMENT:
                found.setdefault(fragment, name)
    return found


def decoded(token: str) -> str | None:
    """The text a base64 (or base64url) token encodes, or None when it encodes none."""
    if len(token) > MAX_DECODE:
        return None
    body = token.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    altchars = b"-_" if ("-" in body or "_" in body) else None
    try:
        data = base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data.decode("utf-8", "replace")


def squeezed(text: str) -> str:
    """text with only its letters and digits."""
    return _NOT_ALNUM.sub("", text)


class Unsqueezed:
    """Where in text each letter or digit of squeezed(text) is; the runs of text are listed the
    first time one is asked for (a find is rare), then each answer is a bisection."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] = []  # where each run of letters and digits starts in text
        self._before: list[int] = []  # how many letters and digits come before it

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Where in text the letters and digits from start to end of squeezed(text) are."""
        if not self._starts:
            seen = 0
            for run in _ALNUM.finditer(self.text):
                self._starts.append(run.start())
                self._before.append(seen)
                seen += run.end() - run.start()
        return self._at(start), self._at(end - 1) + 1

    def _at(self, index: int) -> int:
        run = bisect.bisect_right(self._before, index) - 1
        return self._starts[run] + index - self._before[run]


def squeezed_forms(value: str) -> dict[str, str]:
    """The letters and digits of value, forwards and reversed, as found in a squeezed text;
    none for a value with fewer than MIN_SQUEEZED of them."""
    letters = "".join(_ALNUM.findall(value))
    if len(letters) < MIN_SQUEEZED:
        return {}
    return {letters: "split", letters[::-1]: "split and reversed"}
