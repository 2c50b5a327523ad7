"""Cut: one function's lines cut out of its file and dedented, with the way back to file offsets.

A method parses on its own only once its indentation is gone, so the mutant generator parses the
dedented text; every edit it finds is then a position in that text, which ``Cut.offset`` turns
back into a character offset of the file, so that a mutant is a splice of the file's own text.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cached_property

from pytest_caretaker.project.files import Definition, SourceFile

NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Cut:
    """A function's lines cut out of its file and dedented, with the way back to file offsets."""

    text: str  # the dedented function
    file_text: str
    first: int  # its first line in the file
    indent: str  # what was removed from every non-blank line
    starts: tuple[int, ...]  # file offset of each of its lines, and of the line after it
    stripped: tuple[bool, ...]  # whether the indent was removed from that line
    newline: str

    @classmethod
    def of(cls, source: SourceFile, definition: Definition) -> Cut | None:
        file_text = source.text
        line_starts = [0] + [m.end() for m in NEWLINE.finditer(file_text)]
        if line_starts[-1] != len(file_text):
            line_starts.append(len(file_text))
        first, last = definition.start, definition.end
        if last >= len(line_starts):
            return None
        starts = tuple(line_starts[first - 1 : last + 1])
        lines = [file_text[a:b] for a, b in itertools.pairwise(starts)]
        indent = indentation(lines[0])
        stripped: list[bool] = []
        parts: list[str] = []
        for line in lines:
            if line.startswith(indent):
                parts.append(line[len(indent) :])
                stripped.append(True)
            elif not line.strip():
                parts.append(line)
                stripped.append(False)
            else:
                return None  # a line less indented than the def: a multi-line string, say
        found = NEWLINE.search(lines[0])
        newline = found.group() if found else "\n"
        return cls("".join(parts), file_text, first, indent, starts, tuple(stripped), newline)

    @cached_property
    def text_lines(self) -> list[str]:
        return NEWLINE.split(self.text)

    def offset(self, line: int, column: int) -> int:
        """File offset of a (line, column) of the dedented text."""
        return self.starts[line - 1] + column + (len(self.indent) if self.stripped[line - 1] else 0)

    def line_start(self, line: int) -> int:
        return self.starts[min(line, len(self.starts)) - 1]

    def indented(self, code: str) -> str:
        """Code generated at the dedented level, indented back to the function's level."""
        if not self.indent:
            return code
        return re.sub(r"(\r\n|\r|\n)(?=[^\r\n])", lambda m: m.group(1) + self.indent, code)


def indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]
