"""``caretaker report``: the heal history as one self-contained HTML page.

No script, font or style sheet is fetched: the styles are inline, the charts are SVG drawn by
charts.py, the page works offline and prints in black and white.
"""

from __future__ import annotations

import os
import time
from html import escape
from pathlib import Path

from pytest_caretaker.history import charts, tables
from pytest_caretaker.history.stats import Stats, compute
from pytest_caretaker.history.store import History, history_path, read
from pytest_caretaker.report.files import OUTPUT_DIR
from pytest_caretaker.report.summary import REPORT_FILE
from pytest_caretaker.text import plural

MAX_ROWS = 1_000  # rows of the table of every heal: the latest ones

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
#every-heal{min-width:58em}
th,td{border-bottom:1px solid #999;padding:4px 6px;text-align:left;vertical-align:top;
overflow-wrap:anywhere}
th{border-bottom:2px solid #111;overflow-wrap:normal}
.num{text-align:right;white-space:nowrap}
.outcome.good{font-weight:700}.outcome.bad{font-style:italic}
td.fix{min-width:14em}
#every-heal td:first-child{white-space:nowrap}
#every-heal td:nth-child(2){min-width:14em}#every-heal td:nth-child(4){min-width:8em}
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
    sections = [
        _header(stats, root, history, since),
        _totals(stats),
        "<h2>Success rate over time</h2>" + charts.rate_over_time(stats.by_day),
        "<h2>By model or repairer</h2>"
        + charts.split_bars(stats.by_repairer, "by-repairer", "Heals by model or repairer")
        + tables.groups("by-repairer-table", "model or repairer", stats.by_repairer),
        "<h2>By exception type</h2>"
        + charts.split_bars(stats.by_exception, "by-exception", "Heals by exception type")
        + tables.groups("by-exception-table", "exception", stats.by_exception),
        "<h2>Why tests were not healed</h2>"
        + (tables.reasons(stats.reasons) if stats.reasons else "<p>Every test was healed.</p>"),
        "<h2>The slowest heals</h2>" + _short_list(tables.heals("slowest", stats.slowest)),
        "<h2>The most expensive heals</h2>"
        + _short_list(tables.heals("costliest", stats.costliest), "No heal cost money."),
        _every_heal(stats, root, folder),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>caretaker report</title><style>{STYLE}</style></head><body><main>"
        + "\n".join(sections)
        + "</main></body></html>\n"
    )


def _header(stats: Stats, root: Path, history: History, since: str) -> str:
    read = ", ".join(escape(p.relative_to(root).as_posix()) for p in history.files)
    line = (
        f'Read <span id="sessions">{plural(stats.sessions, "session")}</span> '
        f"({plural(stats.totals.total, 'failing test')}) from {escape(_when(stats.first))} to "
        f"{escape(_when(stats.last))} in {read}"
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
    totals = stats.totals
    items = [
        ("rate", "success rate", tables.rate(totals.rate)),
        ("healed", "healed", f"{totals.healed:,}"),
        ("not-healed", "not healed", f"{totals.not_healed:,}"),
        ("tokens", "tokens", f"{totals.tokens:,}"),
        ("cost", "cost", tables.money(totals.cost)),
        ("median", "median time", tables.seconds(totals.median_seconds)),
    ]
    cells = "".join(
        f'<div><dt>{label}</dt><dd id="total-{key}">{escape(value)}</dd></div>'
        for key, label, value in items
    )
    return f'<dl class="totals">{cells}</dl>'


def _short_list(table: str, empty: str = "No test was healed.") -> str:
    return table if "<td" in table else f"<p>{empty}</p>"


def _every_heal(stats: Stats, root: Path, folder: Path) -> str:
    shown = stats.records[-MAX_ROWS:][::-1]  # the latest first
    note = ""
    if len(shown) < len(stats.records):
        note = f"<p>The latest {len(shown):,} of {len(stats.records):,}.</p>"
    return "<h2>Every heal</h2>" + note + tables.every_heal(shown, root, folder)
