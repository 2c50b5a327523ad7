"""Every session of the report, the latest first: a row per problem with its tests, how it
ended, what it cost, its fix with its commit, and the link to its transcript, the one that
session wrote."""

from __future__ import annotations

import os
from collections.abc import Sequence
from html import escape
from pathlib import Path
from urllib.parse import quote

from pytest_caretaker.history.problems import FROM_CACHE, NOT_HEALED, UNSURE
from pytest_caretaker.history.rows import Seen, kind
from pytest_caretaker.history.stats import Session
from pytest_caretaker.history.tables import (
    anchor,
    cell,
    commit,
    money,
    num,
    outcome,
    seconds,
    table,
    tests_of,
    when,
)
from pytest_caretaker.report.doubt import CANNOT_TELL, because

HEAD = ["bug", "outcome", "repairer", "#tries", "#tokens", "#cost", "#time", "fix", "commit"]


def section(sessions: Sequence[Session], root: Path, folder: Path, index: dict[int, str]) -> str:
    """The sessions, the latest first and open; index gets each problem row's anchor."""
    parts = []
    for number, session in enumerate(reversed(sessions)):
        opened = " open" if number == 0 else ""
        parts.append(
            f'<details class="session"{opened}><summary>{escape(heading(session))}</summary>'
            + rows(session, root, folder, index)
            + "</details>"
        )
    return "".join(parts)


def heading(session: Session) -> str:
    """``2025-03-01 09:00 · 3 failing tests: 1 repaired, 1 replayed from cache, 1 not healed``
    (and ``, 1 unsure`` when a fix was)."""
    count, unsure = len(session.seen), session.count(UNSURE)
    label = f"{count} {kind(session.seen[0]['source'], count)}"
    fresh = count - session.count(FROM_CACHE) - session.count(NOT_HEALED) - unsure
    return (
        f"{when(session.time)} UTC · {label}: {fresh} repaired, "
        f"{session.count(FROM_CACHE)} replayed from cache, {session.count(NOT_HEALED)} not healed"
        + (f", {unsure} unsure" if unsure else "")
    )


def rows(session: Session, root: Path, folder: Path, index: dict[int, str]) -> str:
    attributes = []
    for number, seen in enumerate(session.seen):
        index[id(seen)] = anchor(seen, number)
        attributes.append(
            {
                "id": anchor(seen, number),
                "data-session": seen["session"],
                "data-lead": seen.tests[0],
                "data-outcome": seen.outcome,
            }
        )
    return table(
        f"session-{session.id}",
        [*HEAD, "transcript"],
        (_cells(seen, root, folder) for seen in session.seen),
        attributes,
    )


def _cells(seen: Seen, root: Path, folder: Path) -> list[tuple[str, str]]:
    return [
        ("", tests_of(seen.tests)),
        outcome(seen),
        cell(seen["repairer"] or "—"),
        num(str(seen.tries)),
        num(f"{int(seen.total('tokens')):,}"),
        num(money(seen.total("cost"))),
        num(seconds(seen.seconds)),
        ("fix", fix(seen)),
        ("", commit(*seen.commit)),
        ("", link(seen["transcript"], root, folder)),
    ]


def fix(seen: Seen) -> str:
    """The fix's diff, folded under the functions it patches; the reason when not healed; the
    commit that broke the test, when its history told (culprit/)."""
    diff = seen["diff"]
    culprit = f'<div class="culprit">{escape(seen["culprit"])}</div>' if seen["culprit"] else ""
    if not (seen.healed or seen.unsure) or not diff:
        return escape(seen["reason"]) + culprit
    lines = "\n".join(_diff_line(line) for line in diff.splitlines())
    patched = ", ".join(str(p) for p in seen.lead.get("patched") or ()) or "the diff"
    if seen.unsure:  # the fix is there to review: why the tests cannot tell it is right
        culprit = doubted(seen["doubt"]) + culprit
    return f"<details><summary>{escape(patched)}</summary><pre>{lines}</pre></details>{culprit}"


def doubted(reason: str) -> str:
    """Why an UNSURE fix is one, as a row shows it."""
    return f'<div class="doubt">{escape(f"{CANNOT_TELL}: {because(reason)}")}</div>'


def _diff_line(line: str) -> str:
    if line.startswith("+") and not line.startswith("+++"):
        return f'<span class="add">{escape(line)}</span>'
    if line.startswith("-") and not line.startswith("---"):
        return f'<span class="del">{escape(line)}</span>'
    return escape(line)


def link(path: str, root: Path, folder: Path) -> str:
    """A link to the transcript, relative to the page's folder; only while the file exists (the
    transcripts of all but the latest --heal-transcripts sessions are removed)."""
    if not path or not (root / path).is_file():
        return '<span title="not kept">—</span>'
    relative = Path(os.path.relpath(root / path, folder)).as_posix()
    return f'<a class="transcript" href="{escape(quote(relative), quote=True)}">transcript</a>'
