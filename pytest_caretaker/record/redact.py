"""Redact: keep secrets out of everything that could leave the machine.

One Redactor per session knows the secret values of this run (environment variables, the
project's .env and config files, git's config, ~/.netrc, ~/.pgpass and the shell's history:
sources.py; locals whose names look like secrets; the literals of the project's code that hold
one: code.py) in every encoding they take (raw, escaped, URL-encoded, JSON-escaped, base64 at any
alignment, hex, reversed, and split into pieces with anything between them, reversed or not), and
recognises strings that look like secrets wherever they appear (tokens of known shapes, private-key
blocks, passwords in URLs, assignments, headers and prose, logins printed as user/password, long
high-entropy strings). Each is
replaced by a marker that says what was removed, e.g.
``[redacted #1: value of $STRIPE_SECRET_KEY]``. A marker the model copies back into code is
restored to the original value when the fix is applied: the secret was in the user's code already.

Redaction runs in time linear in the text (patterns.py says how); only the standard library is
used, and failure.py calls this while the run goes on.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.record import code, patterns, prose, secrets, sources
from pytest_caretaker.record.encodings import Unsqueezed, decoded, forms, squeezed, squeezed_forms
from pytest_caretaker.record.patterns import entropy, looks_random
from pytest_caretaker.record.secrets import MIN_SECRET, plausible, secret_name

__all__ = ["MIN_SECRET", "Redact", "Redactor", "entropy", "looks_random", "secret_name"]

_MARKER = re.compile(r"\[redacted #(\d+): [^\]]*\]")
_ANY_MARKER = re.compile(r"\[redacted #\d+: [^\]]*\]")
#: A part of the text to replace: start, end, what the marker calls it.
Span = tuple[int, int, str]
#: What a caller that only redacts needs: text in, text out (a Redactor is one).
Redact = Callable[[str], str]


class Redactor:
    """Replaces secrets with markers; remembers what it replaced so a fix can put it back."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._secrets: dict[str, str] = {}  # secret value -> what it is
        self._known: dict[str, str] = {}  # each form of each secret -> what it is
        self._squeezed: dict[str, str] = {}  # its letters and digits (reversed too) -> what
        self._split: set[str] = set()  # the values looked for in pieces
        self._numbers: dict[str, int] = {}  # replaced text -> its marker number
        self._lock = threading.Lock()
        self._learning = threading.Lock()
        self._read: set[str] = set()  # the files learn_code read
        for value, what in secrets.from_env(env or {}):
            self.remember(value, what, split=False)

    @classmethod
    def for_project(cls, root: Path, env: Mapping[str, str], home: Path | None = None) -> Redactor:
        """A redactor that knows the secrets of env, of root's .env and config files, of git's
        config for root, and of home's credential files and shell history (sources.py); home
        defaults to the user's."""
        redactor = cls(env)
        for value, what in sources.from_files(root, env, home):
            redactor.remember(value, what)
        return redactor

    def learn_code(self, root: Path, rels: Iterable[str]) -> None:
        """Learn the secrets that the project's Python files at rels (root-relative), and the
        project files they import, hold in literals (code.py); each file once."""
        with self._learning:  # a file another thread is learning is known when this returns
            new = [rel for rel in dict.fromkeys(rels) if rel not in self._read]
            self._read.update(new)
            if new:
                for value, what in code.from_files(ProjectFiles(root), new):
                    self.remember(value, what)

    def remember(self, value: object, what: str, split: bool = True) -> None:
        """Redact this value wherever it appears from now on, in each of its encodings; the
        items of a list, tuple, set or dict value too. split: in pieces too (squeezed_forms),
        for a value candidate code could read and print so; the environment's it cannot (a
        candidate sees placeholders: verify/environment.py), and finding pieces costs a pass."""
        if isinstance(value, (list, tuple, set, frozenset)):
            for item in list(value)[:50]:
                self.remember(item, what, split)
            return
        if isinstance(value, dict):
            for item in list(value.values())[:50]:
                self.remember(item, what, split)
            return
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            return
        text = str(value)
        if not plausible(text) or _MARKER.search(text):
            return
        with self._lock:
            # Known from the environment, then read from a file a candidate can read (a conftest
            # loaded the .env into the environment): from now on in pieces too.
            if text in self._secrets and (not split or text in self._split):
                return
            self._secrets.setdefault(text, what)
            self._forms(text, what, split)
            if split:
                self._split.add(text)

    def _forms(self, text: str, what: str, split: bool) -> None:
        """Learn text's encoded forms and its letters and digits (under the lock)."""
        for form, encoding in forms(text).items():
            if len(form.strip()) >= MIN_SECRET:
                self._known.setdefault(form, f"{what}, {encoding}" if encoding else what)
        for form, how in squeezed_forms(text).items() if split else ():
            self._squeezed.setdefault(form, f"{what}, {how}")

    def learnt(self) -> list[tuple[str, str]]:
        """The values this redactor knows, and what each is (to hand to another process)."""
        return sorted(self._secrets.items())

    def _marker(self, value: str, what: str) -> str:
        with self._lock:  # repairs run in threads; a number must name one value
            number = self._numbers.setdefault(value, len(self._numbers) + 1)
        return f"[redacted #{number}: {what}]"

    def __call__(self, text: str) -> str:
        if not text:
            return text
        # Markers already in the text stay as they are: redacting twice changes nothing.
        pieces = _ANY_MARKER.split(text)
        if len(pieces) == 1:
            return self._plain(text)
        markers = [*_ANY_MARKER.findall(text), ""]
        return "".join(
            self._plain(piece) + marker for piece, marker in zip(pieces, markers, strict=True)
        )

    def _plain(self, text: str) -> str:
        """text (with no marker in it) with each secret replaced; where two finds overlap the
        first found wins: known values (longest first), then shapes, then names, then entropy."""
        taken = bytearray(len(text))
        chosen: list[Span] = []
        for start, end, what in self._spans(text):
            if end > start and taken.find(1, start, end) == -1:
                taken[start:end] = b"\x01" * (end - start)
                chosen.append((start, end, what))
        if not chosen:
            return text
        parts, at = [], 0
        for start, end, what in sorted(chosen):
            parts += [text[at:start], self._marker(text[start:end], what)]
            at = end
        return "".join([*parts, text[at:]])

    def _spans(self, text: str) -> Iterator[Span]:
        yield from self._known_spans(text)
        yield from self._squeezed_spans(text)
        for pattern, what in patterns.SHAPES:
            yield from ((m.start(), m.end(), what) for m in pattern.finditer(text))
        yield from self._encoded_spans(text)
        for m in patterns.URL_PASSWORD.finditer(text):
            yield m.start("value"), m.end("value"), "password in a URL"
        yield from _auth_spans(text)
        for start, end in prose.logins(text):  # "connecting as app/N0rth-Star-88"
            yield start, end, "password of a login shown as user/password"
        for pattern in patterns.NAMED:
            yield from _named_spans(pattern, text)
        for m in patterns.UUID_NEAR_KEY.finditer(text):
            yield m.start("value"), m.end("value"), "UUID next to a key's name"
        for m in patterns.RUN.finditer(text):
            if looks_random(m.group(0)):
                yield m.start(), m.end(), "high-entropy string"

    def _known_spans(self, text: str) -> Iterator[Span]:
        with self._lock:
            known = sorted(self._known.items(), key=lambda item: -len(item[0]))
        for value, what in known:
            at = text.find(value)
            while at != -1:
                yield at, at + len(value), what
                at = text.find(value, at + len(value))

    def _squeezed_spans(self, text: str) -> Iterator[Span]:
        """Known values found by their letters and digits alone: printed in pieces with
        anything between them (``Sm7 p-r ela``, ``['Sm7', 'p-r']``), reversed or not."""
        with self._lock:
            known = sorted(self._squeezed.items(), key=lambda item: -len(item[0]))
        if not known:
            return
        letters, where = squeezed(text), Unsqueezed(text)
        for value, what in known:
            at = letters.find(value)
            while at != -1:
                yield (*where.span(at, at + len(value)), what)
                at = letters.find(value, at + len(value))

    def _encoded_spans(self, text: str) -> Iterator[Span]:
        """Whole base64 tokens whose decoded text holds a known secret (user:password)."""
        if not self._secrets:
            return
        with self._lock:
            values = sorted(self._secrets.items())
        for m in patterns.BASE64_TOKEN.finditer(text):
            plain = decoded(m.group(0))
            if plain is None:
                continue
            found = next((what for value, what in values if value in plain), None)
            if found is not None:
                yield m.start(), m.end(), f"{found}, base64"

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


def _auth_spans(text: str) -> Iterator[Span]:
    """Basic <base64 of user:password> and Bearer <token>."""
    for m in patterns.AUTH_SCHEME.finditer(text):
        value = m.group("value")
        if m.group("scheme") == "Basic":
            plain = decoded(value)
            if plain is not None and ":" in plain:
                yield m.start("value"), m.end("value"), "Basic credentials"
        elif not patterns.code_like(value):
            yield m.start("value"), m.end("value"), "Bearer token"


def _named_spans(pattern: re.Pattern[str], text: str) -> Iterator[Span]:
    """The values of pattern's matches whose name looks like a secret's (and whose unquoted
    value does not read as code: key=len, token: str)."""
    for m in pattern.finditer(text):
        name = m.group("name")
        value = m.group("value").rstrip()
        if "q" not in pattern.groupindex:
            value = value.rstrip(".:")  # "… with password Hunter2-Pony."
            if patterns.code_like(value):
                continue
        if not secret_name(name.rsplit(".", 1)[-1]) or not plausible(value):
            continue
        # A marker never repeats a secret: a "name" that is a token itself (`sk-… : x`) stays out.
        shaped = any(pattern.search(name) for pattern, _ in patterns.SHAPES)
        what = "value of a name shaped like a secret" if shaped else f"value of {name}"
        yield m.start("value"), m.start("value") + len(value), what
