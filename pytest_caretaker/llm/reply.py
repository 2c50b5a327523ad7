"""Reply: every piece of code a model's chat reply holds, read the way a careful developer reads it.

A reply is prose and code. The code is in fenced blocks (of any tag, three or more backticks or
tildes), in runs of unfenced code between paragraphs, in ``>>>`` sessions, and sometimes in an
indented block. Each is a ``Block``: its source, whether it parses, and the prose just before it
(which says "the corrected version", or "the original"). Nothing here knows the project: which
block fixes what is parse.py's question.

A fence closes at the first closing line that leaves code that parses: code whose docstrings
hold fenced examples is read whole. A block that does not parse is not thrown away: a ``>>>``
session in it becomes code of its own (outputs dropped), and its longest parsable runs of
statements are kept (a function followed by its printed output), each flagged as salvaged.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from pytest_caretaker import syntax

_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*?)[ \t]*$")
_CLOSE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*$")
#: Where unfenced code starts: a definition, a decorator, an import, a session prompt.
_CODE_START = re.compile(
    r"^[ \t]*(?:@[\w.]+|def \w|async def \w|class \w|import \w|from [\w.]+ import |>>> )"
)
#: A top-level line that continues the statement before it, never one of its own.
_CONTINUES = re.compile(r"^(?:else\b|elif\b|except\b|finally\b|[)\]}])")
_SESSION = re.compile(r"^>>>(?: |$)")
_MORE = re.compile(r"^\.\.\.(?: |$)")
#: Closing lines tried per fence before settling for the nearest; statements and parses a block
#: that does not parse is searched with (a reply is small; these bound a pathological one).
_MAX_CLOSES = 8
_MAX_UNITS = 300
_MAX_PARSES = 400


@dataclass(frozen=True)
class Block:
    code: str  # dedented source, ending in a newline
    index: int  # its place in the reply, from 0
    kind: str  # "fenced", "loose" (unfenced code), "session" (>>> lines, outputs dropped)
    lang: str = ""  # a fence's tag, lower case
    lead: str = ""  # the prose just before it
    tree: ast.Module | None = None  # None: it does not parse
    error: str = ""  # why it does not parse
    #: True when the block is all of what was written there; False for a run salvaged from a
    #: block that does not parse as a whole (never taken for a function's body).
    whole: bool = True

    @property
    def lines(self) -> int:
        return self.code.count("\n")


@dataclass(frozen=True)
class Reply:
    blocks: tuple[Block, ...]  # every piece of code, in the reply's order; parsed or not
    prose: str  # the text around the code, for the explanation


def read(text: str) -> Reply:
    """The code blocks and the prose of a reply."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    prose: list[str] = []
    lead: list[str] = []
    for kind, part, lang in _segments(lines):
        if kind == "fence":
            found = _code_blocks(part, "fenced", lang, len(blocks))
            blocks += [replace(block, lead=_lead(lead)) for block, _, _ in found]
            lead = []
            continue
        kept = list(part)
        for at, run, indented in _runs(part):
            found = _code_blocks(run, "loose", "", len(blocks))
            for block, start, end in found:
                if block.tree is None and not indented and block.lines < 2:
                    continue  # a line of prose that starts like code ("import it first")
                blocks.append(replace(block, lead=_lead(lead + kept[: at + start])))
                if block.tree is not None:
                    kept[at + start : at + end] = [""] * (end - start)
        prose += kept
        lead = kept
    return Reply(tuple(blocks), "\n".join(prose).strip())


def _lead(lines: Sequence[str]) -> str:
    """The last paragraph of prose before a block (what it says of the code that follows)."""
    paragraphs = re.split(r"\n\s*\n", "\n".join(lines).strip())
    return paragraphs[-1].strip()[-300:]


def _segments(lines: list[str]) -> Iterator[tuple[str, list[str], str]]:
    """("prose", lines, "") and ("fence", content lines, tag) in the reply's order."""
    start = index = 0
    while index < len(lines):
        opened = _OPEN.match(lines[index])
        if opened is None or (opened["fence"][0] == "`" and "`" in opened["info"]):
            index += 1
            continue
        fence = opened["fence"]
        closes = [
            j
            for j in range(index + 1, len(lines))
            if (c := _CLOSE.match(lines[j])) is not None
            and c["fence"][0] == fence[0]
            and len(c["fence"]) >= len(fence)
        ]
        end = _closing(lines, index + 1, closes)
        yield "prose", lines[start:index], ""
        lang = re.match(r"[\w+.-]*", opened["info"])
        yield "fence", lines[index + 1 : end], (lang.group(0) if lang else "").lower()
        start = index = end + 1
    yield "prose", lines[start:], ""


def _closing(lines: list[str], first: int, closes: list[int]) -> int:
    """The line that closes a fence opened before first: the nearest whose content parses (a
    nearer one may sit inside a docstring), else the nearest; the end when none closes."""
    options = [*closes[:_MAX_CLOSES], len(lines)]
    for end in options:
        if _parse(_dedent(lines[first:end]))[0] is not None:
            return end
    return options[0]


def _runs(lines: list[str]) -> Iterator[tuple[int, list[str], bool]]:
    """Unfenced code in prose: (start, lines, indented) of each run from a line that starts code
    (or a markdown block indented by four spaces) to where the prose resumes; an unindented run
    goes on to the next fence, cut into statements later."""
    index = 0
    while index < len(lines):
        line = lines[index]
        indent = _indent(line)
        indented = indent >= 4 and bool(line.strip()) and (index == 0 or not lines[index - 1])
        if not _CODE_START.match(line) and not indented:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and (
            indent == 0 or not lines[end].strip() or _indent(lines[end]) >= indent
        ):
            end += 1
        while end > index + 1 and not lines[end - 1].strip():
            end -= 1
        yield (
            index,
            [line[indent:] if _indent(line) >= indent else line for line in lines[index:end]],
            indent > 0,
        )
        index = end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _code_blocks(
    lines: list[str], kind: str, lang: str, index: int
) -> list[tuple[Block, int, int]]:
    """The blocks one stretch of code gives, each with the lines it spans: the stretch itself
    when it parses; else its session and the runs of it that parse (or itself, unparsed, when
    none does)."""
    code = _dedent(lines)
    if not code.strip():
        return [(Block(code, index, kind, lang, error="the block holds no code"), 0, len(lines))]
    tree, error = _parse(code)
    if tree is not None:
        return [(Block(code, index, kind, lang, tree=tree), 0, len(lines))]
    # Dedented line for line (a fence in a list item indents its code), blank lines kept.
    source = [line.rstrip() for line in textwrap.dedent("\n".join(lines)).split("\n")]
    if lang == "diff" or _is_diff(source):
        new = _dedent([line[1:] for line in source if line[:1] in ("+", " ", "")])
        tree, _ = _parse(new)
        if tree is not None:
            return [(Block(new, index, kind, lang, tree=tree), 0, len(lines))]
    found: list[tuple[Block, int, int]] = []
    session, rest, spans = _session(source)
    if session:
        parsed, _ = _parse(session)
        if parsed is not None:
            found.append((Block(session, index, "session", lang, tree=parsed), *spans))
    starts = None
    if kind == "loose":
        starts = [k for k, line in enumerate(rest) if _CODE_START.match(line)]
    for start, end, tree in _salvage(rest, starts):
        piece = Block(_dedent(rest[start:end]), index + len(found), kind, lang, tree=tree)
        found.append((replace(piece, whole=False), start, end))
    return found or [(Block(code, index, kind, lang, error=error), 0, len(lines))]


def _is_diff(lines: list[str]) -> bool:
    marked = [line for line in lines if line.strip()]
    return (
        bool(marked)
        and all(line[:1] in ("+", "-", " ", "@") for line in marked)
        and any(line.startswith("+") for line in marked)
    )


def _session(lines: list[str]) -> tuple[str, list[str], tuple[int, int]]:
    """The code of a ``>>>`` session in lines (prompts stripped, outputs dropped), the lines with
    the session blanked out, and the lines it spans; "" when there is none."""
    if not any(_SESSION.match(line.lstrip()) for line in lines):
        return "", lines, (0, 0)
    code: list[str] = []
    rest: list[str] = []
    used: list[int] = []
    output = False
    for number, line in enumerate(lines):
        bare = line.lstrip()
        if _SESSION.match(bare) or (output and _MORE.match(bare)):
            code.append(bare[4:])
            output = True
        elif not (output and line.strip()):  # else: what the session printed
            output = False
            rest.append(line)
            continue
        rest.append("")
        used.append(number)
    text = _dedent(code)
    return (text if text.strip() else ""), rest, (used[0], used[-1] + 1)


def _salvage(
    lines: list[str], starts: Sequence[int] | None
) -> Iterator[tuple[int, int, ast.Module]]:
    """The longest runs of top-level statements that parse, each from one of starts (every
    top-level line when None): a run is cut before the statement holding a syntax error."""
    units = [
        k
        for k, line in enumerate(lines)
        if line[:1] not in ("", " ", "\t") and not _CONTINUES.match(line)
    ][:_MAX_UNITS]
    allowed = sorted(set(units if starts is None else starts) & set(units))
    at = parses = 0
    while at < len(allowed) and parses < _MAX_PARSES:
        start = allowed[at]
        end = len(lines)
        found: ast.Module | None = None
        while found is None and parses < _MAX_PARSES:
            parses += 1
            tree, line = _parse_at(lines[start:end])
            if tree is not None:
                found = tree
                break
            cut = [u for u in units if start < u < end and u <= start + line - 1]
            if line <= 0 or not cut:
                break
            end = cut[-1]
        if found is not None and found.body:
            yield start, end, found
            at = next((k for k, s in enumerate(allowed) if s >= end), len(allowed))
        else:
            at += 1


def _dedent(lines: Sequence[str]) -> str:
    text = textwrap.dedent("\n".join(lines)).strip("\n")
    return text + "\n" if text else ""


def _parse(code: str) -> tuple[ast.Module | None, str]:
    try:
        return syntax.parse(code), ""
    except SyntaxError as error:
        return None, f"{error.msg} at line {error.lineno} of the block"
    except (ValueError, RecursionError, MemoryError):  # NUL bytes (3.10, 3.11); deep nesting
        return None, "the block is not plain Python source"


def _parse_at(lines: Sequence[str]) -> tuple[ast.Module | None, int]:
    """The parsed lines, or None and the line (from 1) of the syntax error (0 if unknown)."""
    try:
        return syntax.parse("\n".join(lines) + "\n"), 0
    except SyntaxError as error:
        return None, error.lineno or 0
    except (ValueError, RecursionError, MemoryError):
        return None, 0
