"""``caretaker report``: the heal history as one self-contained HTML page.

No script, font or style sheet is fetched: the styles are inline, the charts are SVG drawn by
charts.py, the page works offline and prints in black and white.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from html import escape
from pathlib import Path

from pytest_caretaker.history import charts, sessions, tables
from pytest_caretaker.history.rows import kind
from pytest_caretaker.history.stats import Stats, compute
from pytest_caretaker.history.store import History, history_path, read
from pytest_caretaker.report.files import OUTPUT_DIR
from pytest_caretaker.report.summary import REPORT_FILE
from pytest_caretaker.text import plural

MAX_SESSIONS = 200  # sessions listed one by one: the latest ones

STYLE = """
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#111;
background:#fff}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.6em;margin:.2em 0}
h2{font-size:1.2em;margin:1.6em 0 .4em;border-bottom:2px solid #111}
.meta{color:#333}
.totals{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:8px;margin:12px 0}
.totals div{border:2px solid #111;padding:8px 10px}
.totals dt{font-size:.85em}.totals dd{margin:0;font-size:1.5em;font-weight:700}
.chart{width:100%;height:auto;max-width:760px;min-width:480px;display:block;
margin:8px 0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;width:100%;min-width:34em;font-size:.9em}
table.wide{min-width:58em}
th,td{border-bottom:1px solid #999;padding:4px 6px;text-align:left;vertical-align:top;
overflow-wrap:anywhere}
th{border-bottom:2px solid #111;overflow-wrap:normal}
.num{text-align:right;white-space:nowrap}
td.fix{min-width:14em}
#bugs td:first-child,table[id^="session-"] td:first-child,#tests td:first-child{min-width:13em}
ul.tests{margin:2px 0 0;padding-left:1.2em;font-size:.95em}
.outcome.not-healed{font-style:italic}.outcome.healed{font-weight:700}
.outcome.unsure{font-weight:700;font-style:italic}.doubt{font-size:.9em;font-style:italic}
details.session{margin:6px 0}details.session>summary{font-weight:600}
code{font-size:.95em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85em;background:#f4f4f4;padding:6px;
margin:4px 0}
.add{background:#dfd;font-weight:700}.del{background:#fdd;text-decoration:line-through}
summary{cursor:pointer}
@media print{.scroll{overflow:visible}pre{background:none;border:1px solid #999}}
"""


class NoHistory(Exception):
    """There is nothing to report: the message says why and what to do."""


def default_output(root: Path) -> Path:
    return root / OUTPUT_DIR / REPORT_FILE


def write_report(root: Path, out: Path | None = None, since: str = "") -> tuple[Path, Stats]:
    """Read root's history, write the page to out; raises NoHistory, or OSError."""
    history = read(root)
    if not history.records:
        raise NoHistory(f"no heal history in {history_path(root)} yet: run pytest --heal first")
    stats = compute(history.records, since)
    if not stats.records:
        raise NoHistory(f"no heal in {history_path(root)} since {since}")
    target = out if out is not None else default_output(root)
    target.parent.mkdir(parents=True, exist_ok=True)
    page = render(stats, root, target.parent.resolve(), history, since)
    part = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    part.write_text(page, encoding="utf-8")
    os.replace(part, target)  # a browser reloading it never sees half a page
    return target, stats


def render(stats: Stats, root: Path, folder: Path, history: History, since: str) -> str:
    index: dict[int, str] = {}  # each problem row's anchor, for the bugs' links to them
    listed = stats.sessions[-MAX_SESSIONS:]
    every = sessions.section(listed, root, folder, index)
    if len(listed) < len(stats.sessions):
        every = f"<p>The latest {len(listed):,} of {len(stats.sessions):,}.</p>" + every
    body = [
        _header(stats, root, history, since),
        _totals(stats),
        "<h2>Sessions</h2>" + charts.by_session(stats.sessions) + f"<p>{REPLAYS}</p>",
        "<h2>Bugs</h2>" + tables.bugs(stats.bugs, index),
        "<h2>By repairer: fresh repairs</h2>"
        + charts.split_bars(stats.by_repairer, "by-repairer", "Fresh repairs by repairer")
        + tables.groups("by-repairer-table", "repairer", stats.by_repairer)
        + f"<p>{_replays(stats.replays)} replayed from cache: not counted.</p>",
        "<h2>Why repairs did not heal</h2>"
        + (tables.reasons(stats.reasons) if stats.reasons else "<p>Every repair healed.</p>"),
        "<h2>By exception type</h2>"
        + tables.groups("by-exception-table", "exception", stats.by_exception, "#bugs healed"),
        "<h2>Tests</h2>" + tables.tests(stats.tests),
        "<h2>Every session</h2>" + every,
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>caretaker report</title><style>{STYLE}</style></head><body><main>"
        + "\n".join(body)
        + "</main></body></html>\n"
    )


REPLAYS = (
    "Each column is a session, its problems stacked: repaired there, replayed from cache (a "
    "fix remembered from an earlier session, verified again: no new success), not healed."
)


def _replays(count: int) -> str:
    return plural(count, "remembered fix", "remembered fixes")


def _header(stats: Stats, root: Path, history: History, since: str) -> str:
    read = ", ".join(escape(p.relative_to(root).as_posix()) for p in history.files)
    kinds = Counter(bug.first["source"] or "pytest" for bug in stats.bugs)
    met = ", ".join(f"{n} {kind(source, n)}" for source, n in sorted(kinds.items()))
    healed, unsure = stats.healed, stats.unsure
    counted = f"{healed} healed, " + (f"{unsure} unsure, " if unsure else "")  # only if any
    counted += f"{len(stats.bugs) - healed - unsure} not healed"
    line = (
        f'<span id="bugs">{plural(len(stats.bugs), "bug")}</span> ({met}): {counted}, met in '
        f'<span id="sessions">{plural(len(stats.sessions), "session")}</span> from '
        f"{escape(_when(stats.first))} to {escape(_when(stats.last))}; read from {read}"
    )
    if since:
        line += f", since {escape(since)}"
    if history.unreadable:
        line += f"; {plural(history.unreadable, 'line')} could not be read"
    made = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (
        f'<h1>caretaker report</h1><p class="meta">{line}. Made {made} for {escape(str(root))}.</p>'
    )


def _when(stamp: str) -> str:
    return stamp.replace("T", " ").replace("Z", " UTC")


def _totals(stats: Stats) -> str:
    fresh = stats.fresh
    items = [
        ("bugs", "bugs", f"{len(stats.bugs):,}"),
        ("healed", "bugs healed", f"{stats.healed:,}"),
        *([("unsure", "bugs unsure", f"{stats.unsure:,}")] if stats.unsure else []),
        ("not-healed", "bugs not healed", f"{len(stats.bugs) - stats.healed - stats.unsure:,}"),
        ("sessions", "sessions", f"{len(stats.sessions):,}"),
        ("repaired", "fresh repairs healed", f"{fresh.healed} / {fresh.total}"),
        ("rate", "of fresh repairs", tables.rate(fresh.rate)),
        ("replays", "replayed from cache", f"{stats.replays:,}"),
        ("tokens", "tokens", f"{int(stats.total('tokens')):,}"),
        ("cost", "cost", tables.money(stats.total("cost"))),
    ]
    cells = "".join(
        f'<div><dt>{label}</dt><dd id="total-{key}">{escape(value)}</dd></div>'
        for key, label, value in items
    )
    return f'<dl class="totals">{cells}</dl>'
