"""The report's tables as HTML: every value escaped (test ids, reasons and diffs are the user's
data), numbers right-aligned, each table in a box that scrolls sideways on a phone rather than
widening the page."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape

from pytest_caretaker.history.problems import FROM_CACHE
from pytest_caretaker.history.rows import Seen
from pytest_caretaker.history.stats import Bug, Reason, Row, TestView
from pytest_caretaker.report.doubt import CANNOT_TELL, because

Cell = tuple[str, str]  # (class, already escaped HTML)
#: How a problem's outcome reads in a row.
SAID = {FROM_CACHE: "replayed from cache"}


def rate(value: float) -> str:
    return f"{value * 100:.1f} %"


def money(value: float) -> str:
    return f"${value:.4f}"


def seconds(value: float) -> str:
    return f"{value:.1f} s"


def when(stamp: str) -> str:
    """A record's UTC time to the minute: 2025-03-01 09:00."""
    return stamp.replace("T", " ")[:16]


def table(
    name: str,
    head: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    attributes: Iterable[Mapping[str, str]] = (),
) -> str:
    """A table with id name; a header cell starting with '#' is a number column; attributes:
    each row's, in order (an id, data-* values)."""
    heads = "".join(
        f'<th class="num">{escape(h[1:])}</th>' if h.startswith("#") else f"<th>{escape(h)}</th>"
        for h in head
    )
    said = iter(attributes)
    body = "".join(
        f"<tr{_attributes(next(said, {}))}>"
        + "".join(f'<td class="{c}">{v}</td>' if c else f"<td>{v}</td>" for c, v in cells)
        + "</tr>"
        for cells in rows
    )
    return (
        f'<div class="scroll"><table id="{escape(name, quote=True)}"><thead><tr>{heads}</tr>'
        f"</thead><tbody>{body}</tbody></table></div>"
    )


def _attributes(values: Mapping[str, str]) -> str:
    return "".join(f' {key}="{escape(value, quote=True)}"' for key, value in values.items())


def cell(value: object) -> Cell:
    return ("", escape(str(value)))


def num(value: str) -> Cell:
    return ("num", escape(value))


def groups(name: str, first: str, rows: Sequence[Row], unit: str = "#healed") -> str:
    head = [first, unit, "#not healed", "#success", "#tokens", "#cost", "#median time"]
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
        ["why", "#repairs", "most frequent reason"],
        ([cell(r.category), num(str(r.count)), cell(r.example)] for r in rows),
    )


def tests_of(tests: Sequence[str]) -> str:
    """A problem's tests: the lead, then the others it fails, grouped under it."""
    lead = escape(tests[0])
    if len(tests) == 1:
        return lead
    others = "".join(f"<li>{escape(t)}</li>" for t in tests[1:])
    return f'{lead}<ul class="tests">{others}</ul>'


def commit(sha: str, subject: str) -> str:
    return f"<code>{escape(sha)}</code> {escape(subject)}" if sha else ""


def outcome(seen: Seen) -> Cell:
    said = SAID.get(seen.outcome, seen.outcome)
    if seen["category"]:
        said += f" ({seen['category']})"
    return ("outcome " + seen.outcome.replace(" ", "-"), escape(said))


def anchor(seen: Seen, index: int) -> str:
    return f"s{seen['session']}-{index}"


def bugs(found: Sequence[Bug], anchors: Mapping[int, str]) -> str:
    """One row a bug: its tests, when it first failed, how often, and what healed it."""
    head = ["bug", "kind", "first failed", "#sessions", "status", "healed by", "#replays"]
    return table(
        "bugs",
        [*head, "commit or why not"],
        ([*_bug_cells(bug, anchors), ("", _settled(bug))] for bug in found),
        ({"data-status": bug.status} for bug in found),
    )


def _bug_cells(bug: Bug, anchors: Mapping[int, str]) -> list[Cell]:
    fix, status = bug.fix, bug.status
    by = ""
    if fix is not None:
        how = "remembered fix" if not fix.fresh else fix["repairer"] or "?"
        link = anchors.get(id(fix), "")
        by = f'<a href="#{escape(link, quote=True)}">{escape(how)}, {escape(when(fix["time"]))}</a>'
    return [
        ("", tests_of(bug.tests)),
        cell(bug.kind),
        cell(when(bug.first["time"])),
        num(str(len(bug.seen))),
        ("outcome " + status.replace(" ", "-"), status),
        ("", by),
        num(str(bug.replays)),
    ]


def _settled(bug: Bug) -> str:
    if bug.healed:
        return commit(*bug.commit) or escape(bug.written or "not written")
    if bug.unsure:  # taken in review, or why the tests cannot tell
        doubt = next((s["doubt"] for s in reversed(bug.seen) if s.unsure), "")
        said = bug.written or f"not written: {CANNOT_TELL}: {because(doubt)}"
        return commit(*bug.commit) or escape(said)
    return escape(bug.last["reason"])


def tests(views: Sequence[TestView]) -> str:
    """One row a test: when it first failed, in how many sessions, what was tried, what healed
    it, and how it ended the last time."""
    return table(
        "tests",
        ["test", "first failed", "#sessions", "tried", "healed by", "last"],
        (
            [
                cell(view.test),
                cell(when(view.seen[0]["time"])),
                num(str(len(view.seen))),
                cell(", ".join(f"{name} ×{n}" for name, n in view.tried.items()) or "—"),
                cell(_healed_by(view)),
                outcome(view.seen[-1]),
            ]
            for view in views
        ),
    )


def _healed_by(view: TestView) -> str:
    fresh = next((s for s in view.seen if s.healed and s.fresh), None)
    replays = sum(1 for s in view.seen if not s.fresh)
    said = f"{fresh['repairer'] or '?'}, {when(fresh['time'])}" if fresh is not None else ""
    if fresh is not None and fresh.key[1] != view.test:
        said += f" (the fix of {fresh.key[1]})"
    if replays:
        said += ("; " if said else "") + f"remembered fix ×{replays}"
    return said or "—"
