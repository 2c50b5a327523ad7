"""Patterns: secrets recognised by their shape or by the name next to them, in linear time.

Every pattern here runs on text a failing test controls (300 KB of hex, ``a:a:a:…``), so none
may backtrack over what it already read: a run that can repeat starts only where the character
before it cannot belong to it (a lookbehind), and no quantified group holds another quantifier.
``tests/unit/test_redact.py`` times adversarial inputs for each.
"""

from __future__ import annotations

import math
import re
from collections import Counter

#: Strings with a known shape, and what the marker calls them.
SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----.*?(?:-----END[A-Z ]{0,40}PRIVATE KEY-----|\Z)",
            re.S,
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
        re.compile(
            r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
        ),
        "JSON web token",
    ),
)
#: user:password@ in a URL (redis://:password@ has no user): the password goes. The scheme
#: starts a run of scheme characters.
URL_PASSWORD = re.compile(
    r"(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,30}://[^\s:/@'\"]{0,200}:(?P<value>[^\s@/'\"]+)@"
)
#: Basic <base64 of user:password>, Bearer <token>.
AUTH_SCHEME = re.compile(
    r"(?<![\w\-])(?P<scheme>Basic|Bearer)[ \t]+(?P<value>[A-Za-z0-9+/._~\-]{6,}=*)"
)
_NAME = r"(?<![\w.\-])(?P<name>[A-Za-z_][\w.\-]*)"
#: Patterns whose "value" group is a secret when the "name" group names one (secret_name).
NAMED: tuple[re.Pattern[str], ...] = (
    # name = the rest of the line, unindented: an ini file, a .env (no code punctuation, so a
    # line of a multi-line call, "api_key=api_key," or "token: str | None = None," is not one)
    re.compile(
        r"(?m)^(?P<name>[A-Za-z_][\w.\-]*)[ \t]*[:=][ \t]*"
        r"(?P<value>[^\s#;'\"(){}\[\],|][^\n(){}\[\],|]*)$"
    ),
    # name = "value", name: 'value', "name": "value", pw='value' in a repr; pw="it's" and
    # pw=b'…' too (a repr quotes a value holding ' with "); a value ends within 200 characters
    re.compile(
        _NAME
        + r"['\"]?[ \t]*[:=][ \t]*[bB]?(?P<q>['\"])(?P<value>(?:(?!(?P=q))[^\n]){1,200})(?P=q)"
    ),
    # NAME=value as in an environment dump or a shell line
    re.compile(r"(?<![\w.\-])(?P<name>[A-Z][A-Z0-9_]*)=(?P<value>[^\s'\"]+)"),
    # name=value, name: value: a libpq conninfo, a repr, an X-Api-Key header
    re.compile(_NAME + r"[ \t]*[:=][ \t]*(?P<value>[^\s'\"`(){}\[\],;<>]+)"),
    # ?name=value in a URL's query
    re.compile(r"[?&](?P<name>[A-Za-z_][\w\-]*)=(?P<value>[^&\s'\"#]+)"),
    # prose: "password is hunter2", "with password Hunter2-Pony." in a docstring or a print
    re.compile(
        r"(?i)(?<![\w\-])(?P<name>password|passwd|passphrase|passcode|pwd|pw)"
        r"(?:[ \t]+(?:is|was|of|for))?[ \t]+[\"'`]?(?P<value>[^\s'\"`,;()]+)"
    ),
)
#: A UUID a few characters after a key-ish word: "api key 3f0c…", "token=…", "X-Auth: …".
UUID_NEAR_KEY = re.compile(
    r"(?i)(?<![\w\-])(?:api[ _\-]?key|key|token|secret|auth\w{0,12}|credentials?)\b"
    r"[^\n]{0,30}?(?P<value>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
)
#: A value that reads as code, not a secret: key=len, token: Optional[str], auth = (user, pw),
#: secret = os.environ["X"], token: str = "".
CODE_LIKE = re.compile(r"[A-Za-z_.\[\]|]+|[A-Za-z_][\w.]*(?:[(\[].*|[ \t]+=.*)|[(\[{].*")
#: Candidates for the base64 decoding and the entropy test: runs of key-alphabet characters.
BASE64_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{8,}={0,2}")
RUN = re.compile(r"(?<![A-Za-z0-9+/_\-=])[A-Za-z0-9+/_\-=]{24,}")
HEX = re.compile(r"[0-9a-fA-F]{32,}")
#: Longest run tested for entropy: a longer one is redacted if its first part looks random.
MAX_RUN = 4_096


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def looks_random(token: str) -> bool:
    """A long token that reads like generated key material rather than words or a path: long
    hex, or mixed-case letters with digits at high entropy, not split into path-sized parts."""
    token = token[:MAX_RUN]
    if HEX.fullmatch(token):
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


def code_like(value: str) -> bool:
    """Whether an unquoted value reads as code (a name, a call, a type) rather than a secret."""
    return CODE_LIKE.fullmatch(value) is not None
