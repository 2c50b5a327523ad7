"""The report's tables as HTML: every value escaped (test ids, reasons and diffs are the user's
data), numbers right-aligned, each table in a box that scrolls sideways on a phone rather than
widening the page."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from urllib.parse import quote

from pytest_caretaker.history.stats import Reason, Record, Row, number, test_id, text

Cell = tuple[str, str]  # (class, already escaped HTML)


def rate(value: float) -> str:
    return f"{value * 100:.1f} %"


def money(value: float) -> str:
    return f"${value:.4f}"


def seconds(value: float) -> str:
    return f"{value:.1f} s"


def table(name: str, head: Sequence[str], rows: Iterable[Sequence[Cell]]) -> str:
    """A table with id name; a header cell starting with '#' is a number column."""
    heads = "".join(
        f'<th class="num">{escape(h[1:])}</th>' if h.startswith("#") else f"<th>{escape(h)}</th>"
        for h in head
    )
    body = "".join(
        "<tr>"
        + "".join(f'<td class="{c}">{v}</td>' if c else f"<td>{v}</td>" for c, v in cells)
        + "</tr>"
        for cells in rows
    )
    return (
        f'<div class="scroll"><table id="{escape(name, quote=True)}"><thead><tr>{heads}</tr>'
        f"</thead><tbody>{body}</tbody></table></div>"
    )


def cell(value: object) -> Cell:
    return ("", escape(str(value)))


def num(value: str) -> Cell:
    return ("num", escape(value))


def groups(name: str, first: str, rows: Sequence[Row]) -> str:
    head = [first, "#healed", "#not healed", "#success", "#tokens", "#cost", "#median time"]
    return table(
        name,
        head,
        (
            [
                cell(r.name),
                num(str(r.healed)),
                num(str(r.not_healed)),
                num(rate(r.rate)),
                num(f"{r.tokens:,}"),
                num(money(r.cost)),
                num(seconds(r.median_seconds)),
            ]
            for r in rows
        ),
    )


def reasons(rows: Sequence[Reason]) -> str:
    return table(
        "reasons",
        ["why", "#tests", "most frequent reason"],
        ([cell(r.category), num(str(r.count)), cell(r.example)] for r in rows),
    )


def heals(name: str, records: Sequence[Record]) -> str:
    """A short list: the slowest or the most expensive heals."""
    return table(
        name,
        ["test", "repairer", "#time", "#tokens", "#cost"],
        (
            [
                cell(test_id(r)),
                cell(text(r, "repairer")),
                num(seconds(number(r, "seconds"))),
                num(f"{int(number(r, 'tokens')):,}"),
                num(money(number(r, "cost"))),
            ]
            for r in records
        ),
    )


def every_heal(records: Sequence[Record], root: Path, folder: Path) -> str:
    head = ["when", "test", "outcome", "repairer", "#tries", "#tokens", "#cost", "#time", "fix"]
    return table(
        "every-heal",
        [*head, "transcript"],
        ([*_heal_cells(r), ("fix", _fix(r)), ("", link(r, root, folder))] for r in records),
    )


def _heal_cells(record: Record) -> list[Cell]:
    outcome = text(record, "outcome")
    if text(record, "category"):
        outcome += f" ({text(record, 'category')})"
    tries = int(number(record, "attempts") or number(record, "candidates"))
    return [
        cell(text(record, "time").replace("T", " ").rstrip("Z")),
        cell(test_id(record)),
        ("outcome " + ("bad" if outcome.startswith("not") else "good"), escape(outcome)),
        cell(text(record, "repairer")),
        num(str(tries)),
        num(f"{int(number(record, 'tokens')):,}"),
        num(money(number(record, "cost"))),
        num(seconds(number(record, "seconds"))),
    ]


def _fix(record: Record) -> str:
    diff = text(record, "diff")
    if text(record, "shared_with"):
        return f"the fix of {escape(text(record, 'shared_with'))}"
    if not diff:
        return escape(text(record, "reason"))
    lines = "\n".join(_diff_line(line) for line in diff.splitlines())
    patched = ", ".join(str(p) for p in record.get("patched") or ()) or "the diff"
    return f"<details><summary>{escape(patched)}</summary><pre>{lines}</pre></details>"


def _diff_line(line: str) -> str:
    if line.startswith("+") and not line.startswith("+++"):
        return f'<span class="add">{escape(line)}</span>'
    if line.startswith("-") and not line.startswith("---"):
        return f'<span class="del">{escape(line)}</span>'
    return escape(line)


def link(record: Record, root: Path, folder: Path) -> str:
    """A link to the transcript, relative to the page's folder; only while the file exists
    (each session replaces the transcripts of the one before)."""
    path = text(record, "transcript")
    if not path or not (root / path).is_file():
        return "—"
    relative = Path(os.path.relpath(root / path, folder)).as_posix()
    return f'<a href="{escape(quote(relative), quote=True)}">transcript</a>'
