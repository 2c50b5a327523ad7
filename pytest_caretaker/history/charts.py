"""The report's charts as inline SVG, drawn here in Python: no script, no library, nothing fetched.

They must read in black and white on paper: healed is solid dark, not healed is hatched, and
every bar carries its number as text. Each SVG scales to its container through its viewBox.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from pytest_caretaker.history.stats import Row
from pytest_caretaker.text import short

WIDTH = 560
SOLID = "#222"
INK = "#111"
BAR = 22  # height of a horizontal bar
GAP = 12


def _attr(value: object) -> str:
    return escape(str(value), quote=True)


def _defs(prefix: str) -> str:
    return (
        f'<defs><pattern id="{prefix}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/>'
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="{INK}" stroke-width="2"/></pattern></defs>'
    )


def _svg(prefix: str, height: float, label: str, body: str) -> str:
    return (
        f'<div class="scroll"><svg class="chart" id="{prefix}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-label="{_attr(label)}" xmlns="http://www.w3.org/2000/svg" '
        f'font-family="system-ui, sans-serif" font-size="14">{_defs(prefix)}{body}</svg></div>'
    )


def legend(prefix: str, y: float = 14) -> str:
    return (
        f'<rect x="0" y="{y - 10}" width="12" height="12" fill="{SOLID}"/>'
        f'<text x="18" y="{y}">healed</text>'
        f'<rect x="90" y="{y - 10}" width="12" height="12" fill="url(#{prefix}-hatch)" '
        f'stroke="{INK}"/><text x="108" y="{y}">not healed</text>'
    )


def split_bars(rows: Sequence[Row], prefix: str, label: str) -> str:
    """One horizontal bar per row, healed solid then not healed hatched, counts as text."""
    name_width, count_width = 180, 130
    room = WIDTH - name_width - count_width
    most = max((r.total for r in rows), default=1) or 1
    parts = [legend(prefix)]
    for index, row in enumerate(rows):
        y = 28 + index * (BAR + GAP)
        won = room * row.healed / most
        lost = room * row.not_healed / most
        name = short(row.name, 23)
        parts.append(
            f"<g><title>{escape(row.name)}: {row.healed} healed, {row.not_healed} not healed"
            f'</title><text x="0" y="{y + 16}">{escape(name)}</text>'
            f'<rect x="{name_width}" y="{y}" width="{won:.1f}" height="{BAR}" fill="{SOLID}"/>'
            f'<rect x="{name_width + won:.1f}" y="{y}" width="{lost:.1f}" height="{BAR}" '
            f'fill="url(#{prefix}-hatch)" stroke="{INK}" stroke-width="1"/>'
            f'<text x="{name_width + won + lost + 6:.1f}" y="{y + 16}">'
            f"{row.healed} / {row.total} · {row.rate:.0%}</text></g>"
        )
    height = 28 + len(rows) * (BAR + GAP) + 4
    return _svg(prefix, height, label, "".join(parts))


def rate_over_time(days: Sequence[Row], prefix: str = "by-day") -> str:
    """The success rate per day as columns with their percentage; the dates below."""
    top, plot, left = 24, 160, 44
    step = (WIDTH - left) / max(len(days), 1)
    width = min(48.0, step * 0.7)
    every = max(1, round(len(days) / 12))  # at most about a dozen date labels
    parts = [
        f'<line x1="{left}" x2="{WIDTH}" y1="{top + plot * (1 - level)}" '
        f'y2="{top + plot * (1 - level)}" stroke="#999" stroke-dasharray="3 3"/>'
        f'<text x="{left - 6}" y="{top + plot * (1 - level) + 4}" text-anchor="end">'
        f"{level:.0%}</text>"
        for level in (0.0, 0.5, 1.0)
    ]
    for index, day in enumerate(days):
        x = left + index * step + (step - width) / 2
        tall = plot * day.rate
        parts.append(
            f"<g><title>{escape(day.name)}: {day.healed} of {day.total} healed</title>"
            f'<rect x="{x:.1f}" y="{top + plot - tall:.1f}" width="{width:.1f}" '
            f'height="{max(tall, 1):.1f}" fill="{SOLID}"/>'
        )
        if len(days) <= 16:
            parts.append(
                f'<text x="{x + width / 2:.1f}" y="{top + plot - tall - 5:.1f}" '
                f'text-anchor="middle">{day.rate:.0%}</text>'
            )
        if index % every == 0:
            parts.append(
                f'<text x="{x + width / 2:.1f}" y="{top + plot + 18}" text-anchor="middle">'
                f"{escape(day.name[5:])}</text>"
                f'<text x="{x + width / 2:.1f}" y="{top + plot + 34}" text-anchor="middle" '
                f'font-size="11">{day.healed}/{day.total}</text>'
            )
        parts.append("</g>")
    label = "Success rate by day: " + ", ".join(f"{d.name} {d.rate:.0%}" for d in days)
    return _svg(prefix, top + plot + 42, label, "".join(parts))
