"""Clones: code copied beside a suspect is fixed with it.

semver's ``bump_prerelease`` and ``bump_build`` are one body with other names; a test of the first
fails, and its developer fixes both the same way. No trace of the failing test reaches the copy,
so the functions of a best suspect's file whose code has the suspect's shape (names, strings and
numbers aside, SIMILAR of the tokens alike, at least SHORTEST of them: two one-line getters are
alike without being copies) become suspects after it (``clones``), unless there are more than
COPIES of them.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import io
import keyword
import tokenize
from collections.abc import Sequence

from pytest_caretaker.project.files import Definition, ProjectFiles, SourceFile, TestFiles

Key = tuple[str, str]  # (path, qualname)

#: The best-ranked functions outside tests whose copies are looked for.
OF = 3
#: How alike two bodies' token shapes must be (difflib's ratio), and how long.
SIMILAR = 0.85
SHORTEST = 20
#: Longer bodies (~70 lines) are not compared: difflib's ratio costs their product, 700-line
#: functions exist, and a copy of one is rare.
LONGEST = 1_000
#: Copies of one function at most: more alike are an idiom of the module (arrow's locales each
#: format a timeframe alike), not a copy to fix with it.
COPIES = 2
_SKIPPED = frozenset(
    {tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
)


def clones(order: Sequence[Key], sources: ProjectFiles, tests: TestFiles) -> list[tuple[Key, Key]]:
    """(a copy, the suspect it copies) for the first OF functions of order outside tests."""
    found: list[tuple[Key, Key]] = []
    looked = 0
    for path, qualname in order:
        source = sources.get(path) if path not in tests else None
        definition = source.find(qualname) if source is not None else None
        if source is None or definition is None or not definition.runs:
            continue
        shape = _shape(source, definition)
        copies = [
            (path, other.qualname)
            for other in (source.definitions if SHORTEST <= len(shape) <= LONGEST else ())
            if other.runs
            and other.start != definition.start
            and _alike(shape, _shape(source, other))
        ]
        taken = set(order) | {copy for copy, _ in found}
        if len(copies) <= COPIES:
            found += [(key, (path, qualname)) for key in copies if key not in taken]
        looked += 1
        if looked == OF:
            break
    return found


def _alike(one: Sequence[str], other: Sequence[str]) -> bool:
    if not SHORTEST <= len(other) <= LONGEST or 2 * min(len(one), len(other)) < SIMILAR * (
        len(one) + len(other)
    ):
        return False
    matcher = difflib.SequenceMatcher(None, one, other, autojunk=False)
    return matcher.quick_ratio() >= SIMILAR and matcher.ratio() >= SIMILAR


def _shape(source: SourceFile, definition: Definition) -> list[str]:
    """The body's tokens, each name, string and number as one placeholder of its kind."""
    lines, shapes = _tokens(source.data)
    first = bisect.bisect_left(lines, definition.body_start)
    last = bisect.bisect_right(lines, definition.end)
    return list(shapes[first:last])


@functools.lru_cache(maxsize=32)
def _tokens(data: bytes) -> tuple[list[int], tuple[str, ...]]:
    """A module's tokens' lines and shapes, in order (none for a file that does not tokenize)."""
    lines: list[int] = []
    shapes: list[str] = []
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type in _SKIPPED or token.type == tokenize.ENCODING:
                continue
            name = token.type == tokenize.NAME and not keyword.iskeyword(token.string)
            kinds = {tokenize.STRING: "S", tokenize.NUMBER: "0"}
            lines.append(token.start[0])
            shapes.append("N" if name else kinds.get(token.type, token.string))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        return [], ()
    return lines, tuple(shapes)
