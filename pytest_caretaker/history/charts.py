"""The report's charts as inline SVG, drawn here in Python: no script, no library, nothing fetched.

They must read in black and white on paper: healed is solid dark, replayed from cache dotted,
not healed hatched, and every bar carries its number as text. Each SVG scales to its container
through its viewBox.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from pytest_caretaker.history.problems import FROM_CACHE, NOT_HEALED, UNSURE
from pytest_caretaker.history.stats import Row, Session
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
        f'<line x1="0" y1="0" x2="0" y2="6" stroke="{INK}" stroke-width="2"/></pattern>'
        f'<pattern id="{prefix}-dots" width="5" height="5" patternUnits="userSpaceOnUse">'
        f'<rect width="5" height="5" fill="#fff"/><circle cx="2.5" cy="2.5" r="1.2" '
        f'fill="{INK}"/></pattern></defs>'
    )


def _svg(prefix: str, height: float, label: str, body: str) -> str:
    return (
        f'<div class="scroll"><svg class="chart" id="{prefix}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" role="img" '
        f'aria-label="{_attr(label)}" xmlns="http://www.w3.org/2000/svg" '
        f'font-family="system-ui, sans-serif" font-size="14">{_defs(prefix)}{body}</svg></div>'
    )


def legend(prefix: str, y: float = 14, cached: bool = False) -> str:
    keys = [("healed", SOLID), ("not healed", f"url(#{prefix}-hatch)")]
    if cached:
        keys = [("repaired", SOLID), ("from cache", f"url(#{prefix}-dots)"), keys[1]]
    parts = []
    for index, (name, fill) in enumerate(keys):
        x = index * 120
        parts.append(
            f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{fill}" stroke="{INK}"/>'
            f'<text x="{x + 18}" y="{y}">{name}</text>'
        )
    return "".join(parts)


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


def _when(stamp: str) -> str:
    return stamp.replace("T", " ")[:16]


def counts(session: Session, prefix: str) -> list[tuple[str, int, str]]:
    """(what, how many, fill) of a session's problems, from the bottom of its column up."""
    # An UNSURE fix is no heal: it stacks with the not healed.
    cached, lost = session.count(FROM_CACHE), session.count(NOT_HEALED) + session.count(UNSURE)
    return [
        ("repaired", len(session.seen) - cached - lost, SOLID),
        ("from cache", cached, f"url(#{prefix}-dots)"),
        ("not healed", lost, f"url(#{prefix}-hatch)"),
    ]


def by_session(sessions: Sequence[Session], prefix: str = "by-session") -> str:
    """A column per session, its problems stacked: repaired, replayed from cache, not healed,
    their counts below the session's date and time."""
    top, plot, left = 28, 150, 24
    step = (WIDTH - left) / max(len(sessions), 1)
    width = min(48.0, step * 0.7)
    every = max(1, round(len(sessions) / 12))  # at most about a dozen labels
    most = max((len(s.seen) for s in sessions), default=1) or 1
    parts = [legend(prefix, cached=True)]
    for index, session in enumerate(sessions):
        x, bottom = left + index * step + (step - width) / 2, float(top + plot)
        stacked = counts(session, prefix)
        said = ", ".join(f"{n} {name}" for name, n, _ in stacked)
        parts.append(f'<g class="session"><title>{escape(_when(session.time))}: {said}</title>')
        for name, count, fill in stacked:
            tall = plot * count / most
            if count:
                parts.append(
                    f'<rect class="{name.replace(" ", "-")}" x="{x:.1f}" y="{bottom - tall:.1f}" '
                    f'width="{width:.1f}" height="{tall:.1f}" fill="{fill}" stroke="{INK}"/>'
                )
            bottom -= tall
        if index % every == 0:
            middle, stamp = x + width / 2, _when(session.time)
            numbers = "/".join(str(n) for _, n, _ in stacked)
            parts.append(
                f'<text x="{middle:.1f}" y="{top + plot + 16}" text-anchor="middle" '
                f'font-size="11">{escape(stamp[5:10])}</text>'
                f'<text x="{middle:.1f}" y="{top + plot + 30}" text-anchor="middle" '
                f'font-size="11">{escape(stamp[11:])}</text>'
                f'<text x="{middle:.1f}" y="{top + plot + 44}" text-anchor="middle" '
                f'font-size="11">{numbers}</text>'
            )
        parts.append("</g>")
    label = "Problems by session (repaired, from cache, not healed): " + "; ".join(
        f"{_when(s.time)} " + "/".join(str(n) for _, n, _ in counts(s, prefix)) for s in sessions
    )
    return _svg(prefix, top + plot + 50, label, "".join(parts))
