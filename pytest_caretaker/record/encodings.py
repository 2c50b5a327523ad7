"""Encodings: the forms a secret takes on its way into a failure's text.

A password is rarely printed as itself alone: it goes into a URL (percent-encoded), a JSON body
(escaped), an ``Authorization: Basic`` header (base64 of ``user:password``) or a repr, and a
candidate that reads one may print it reversed. Base64 of
a longer text holds the secret's encoding at one of three alignments, so each alignment's stable
characters are learnt; a whole base64 token can also be decoded and searched (``decoded``).
"""

from __future__ import annotations

import base64
import binascii
import json
from urllib.parse import quote, quote_plus

#: Shortest base64 fragment learnt: shorter ones would match inside unrelated base64 text.
MIN_FRAGMENT = 6
#: Longest token decoded as base64 to look for a secret in it.
MAX_DECODE = 100_000

_ALPHABETS = ((base64.b64encode, "base64"), (base64.urlsafe_b64encode, "base64url"))


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
