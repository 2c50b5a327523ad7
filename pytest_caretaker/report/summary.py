"""Report: the header line and the ``caretaker`` summary section of the terminal report.

Imported by the session at start-up: libcst loads only once a diff is shown.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from pytest_caretaker.report import doubt, levels
from pytest_caretaker.report.files import OUTPUT_DIR
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.text import plural

if TYPE_CHECKING:  # the header is all a session with nothing to heal shows
    from pytest_caretaker.results import FileChange, HealResult, Written

#: Under .caretaker/: the history every heal session appends to (history/), and the page
#: ``caretaker report`` makes of it.
HISTORY_FILE = "history.jsonl"
REPORT_FILE = "report.html"


class Writer(Protocol):
    def write_line(self, line: str, **markup: bool) -> None: ...
    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None: ...


def header(settings: Settings, why: bool = True) -> str:
    """The header's line: the mode, the chain (and with why, how it was chosen), the scope."""
    model = " → ".join(settings.models)
    label = "model" if len(settings.models) < 2 else "models"
    said = [settings.environment] if settings.environment else []
    said += [settings.reason] if settings.reason and why else []
    if said:
        model += f" ({'; '.join(said)})"
    return f"caretaker: {settings.mode} · {label} {model} · scope {settings.scope}"


def caps(settings: Settings) -> str | None:
    """What models may spend, in a few words; None when the chain has no model. Requests are
    per model (a fallback has attempts of its own); tokens per problem, over the chain."""
    models = [model for model in settings.models if model != BUILTIN]
    if not models:
        return None
    each = " a model" if len(models) > 1 else ""
    line = (
        f"caretaker: caps: {plural(settings.attempts, 'request')}{each} and "
        f"{settings.max_tokens:,} tokens a problem, {settings.session_tokens:,} tokens a session"
    )
    return line + (f", ${settings.budget:.2f}" if settings.budget is not None else "")


def display_diff(applied: FileChange) -> list[str]:
    from pytest_caretaker.apply.rewrite import unified_diff

    text = unified_diff(applied).decode("utf-8", "replace")
    return [line.rstrip("\r") for line in text.splitlines()[1:]]


def show_diff(writer: Writer, applied: FileChange, indent: str = "  ") -> None:
    for line in display_diff(applied):
        writer.write_line(indent + line, **doubt.diff_markup(line))


def summary(
    writer: Writer,
    results: Sequence[HealResult],
    patch: Path | None,
    root: Path,
    written: Sequence[Written] = (),
    local: Collection[str] = (),
    verbosity: int = 0,
    session: str = "",
) -> None:
    """local: the models served locally, whose calls show "local" for a cost; verbosity:
    pytest's (-q: one line a test, levels.brief; -v: what the search tried too, levels.details);
    session: the one whose folder holds the transcripts.
    """
    writer.write_sep("=", "caretaker")
    fate = {nodeid: w for w in written for nodeid in w.fix.nodeids}
    shown: dict[tuple[tuple[str, bytes], ...], str] = {}
    ordered = sorted(results, key=lambda r: r.nodeid)
    brief, full = (ordered, []) if verbosity < 0 else ([], ordered)
    _brief(writer, brief, fate)  # -q: one line a test
    for result in full:
        if not result.healed:
            writer.write_line(f"NOT HEALED {result.nodeid}: {result.reason}", red=True, bold=True)
            _culprit(writer, result)
            if result.spend.rounds:  # what the requests about this problem came to
                writer.write_line(f"  {stats(result)}")
            _details(writer, result, verbosity, session)
            continue
        _fix(writer, result, shown, local)
        _details(writer, result, verbosity, session)
        if result.nodeid in fate:
            done = fate[result.nodeid]
            writer.write_line(f"  {done.detail}", bold=True, yellow=done.state != "committed")
    writer.write_line(closing_line(results, patch, root, written, local), bold=True)


def _fix(
    writer: Writer,
    result: HealResult,
    shown: dict[tuple[tuple[str, bytes], ...], str],
    local: Collection[str],
) -> None:
    """A result with a fix: HEALED (or UNSURE), what it patches, its diff and explanation (once
    for a fix of several tests: shown), its doubt, and what it cost."""
    if result.unsure:  # a fix the tests cannot tell from another: never a plain HEALED
        writer.write_line(f"UNSURE {result.nodeid}", yellow=True, bold=True)
    else:
        cached = " (from cache)" if result.via == "cache" else ""
        writer.write_line(f"HEALED {result.nodeid}{cached}", green=True, bold=True)
    _culprit(writer, result)
    patched = ", ".join(edit.ref for edit in result.edits if edit.kind != "import")
    writer.write_line(f"  patched {patched}")
    change = tuple(sorted((c.path, c.after) for c in result.changes))
    again = change in shown
    if again:  # one fix healing several tests is shown once
        writer.write_line(f"  the same fix as for {shown[change]}")
    else:
        shown[change] = result.nodeid
        for applied in result.changes:
            show_diff(writer, applied)
        if result.explanation:
            writer.write_line(f"  {result.explanation}")
    _doubt(writer, result, again)
    for notice in result.notices:  # a judgement call on a test: the reader must see it
        writer.write_line(f"  ! the fix {notice}", yellow=True, bold=True)
    if result.fallbacks:  # the chain moved on: say from which model the fix came, and why
        before = "; ".join(result.fallbacks)
        writer.write_line(f"  fix from {result.repairer}, after {before}", yellow=True)
    writer.write_line(f"  {stats(result, local)}")


def cost(dollars: float, models: Collection[str], local: Collection[str]) -> str:
    """What was spent: "local" when nothing was, on models served locally alone."""
    if dollars == 0 and models and all(model in local for model in models):
        return "local"
    return f"${dollars:.4f}"


def _culprit(writer: Writer, result: HealResult) -> None:
    """The commit that broke the test, when its history tells (culprit/)."""
    if result.culprit is not None:
        from pytest_caretaker.changes.lineage import culprit_line

        writer.write_line(f"  {culprit_line(result.culprit)}", yellow=True)


def _doubt(writer: Writer, result: HealResult, again: bool) -> None:
    """Why an UNSURE fix is one, in full where its diff is shown; its reason alone where the
    same fix was shown for another test."""
    said = result.candidate.doubt if result.candidate is not None else None
    if said is None:
        return
    shown = doubt.lines(said)
    for line, markup in shown[:1] if again else shown:
        writer.write_line(line, **markup)


def _brief(writer: Writer, results: Sequence[HealResult], fate: Mapping[str, Written]) -> None:
    for result in results:
        for line, markup in levels.brief(result, fate.get(result.nodeid)):
            writer.write_line(line, **markup)


def _details(writer: Writer, result: HealResult, verbosity: int, session: str) -> None:
    if verbosity > 0:
        for line in levels.details(result, session):
            writer.write_line(line)


def stats(result: HealResult, local: Collection[str] = ()) -> str:
    spend = result.spend
    if result.shared_with:
        return (
            f"one root cause: the fix found for {result.shared_with} heals this test too · "
            f"no extra tokens · {spend.seconds:.1f} s"
        )
    if result.via == "cache":
        return f"from cache (first found by {result.repairer}) · no tokens · {spend.seconds:.1f} s"
    if spend.candidates:  # the built-in repairer's edits, not a model's rounds
        return (
            f"{plural(spend.candidates, 'candidate')} tried · no model, no tokens · "
            f"{spend.seconds:.1f} s · {result.repairer}"
        )
    shown = f" · {levels.asked(spend.asked, listed=False)}" if spend.asked else ""
    return (
        f"{plural(spend.rounds, 'attempt')}{shown} · {plural(spend.tokens, 'token')} · "
        f"{cost(spend.cost, [result.repairer], local)} · {spend.seconds:.1f} s · {result.repairer}"
    )


def closing_line(
    results: Sequence[HealResult],
    patch: Path | None,
    root: Path,
    written: Sequence[Written] = (),
    local: Collection[str] = (),
) -> str:
    healed = sum(1 for r in results if r.outcome == "healed")
    unsure = sum(1 for r in results if r.unsure)  # said only when there is one: CI greps this
    tokens = sum(r.spend.tokens for r in results)
    dollars = sum(r.spend.cost for r in results)
    line = f"caretaker: {healed} healed, " + (f"{unsure} unsure, " if unsure else "")
    line += f"{len(results) - healed - unsure} not healed · "
    if tokens == 0 and dollars == 0:
        line += "no tokens spent"  # the built-in repairer only, or models that never answered
    else:
        spent = {r.repairer for r in results if r.spend.tokens}
        line += f"{plural(tokens, 'token')} · {cost(dollars, spent, local)}"
    if written:
        done = sum(1 for w in written if w.state in ("written", "committed"))
        committed = sum(1 for w in written if w.state == "committed")
        line += f" · {plural(done, 'fix', 'fixes')} written, {committed} committed"
    if patch is not None:
        line += f" · fixes in {patch.relative_to(root).as_posix()}"
    stale = stale_report(root)
    if stale is not None:
        line += f" · caretaker report updates {stale}"
    return line


def stale_report(root: Path) -> str | None:
    """The report's path (relative to root) when there is one and the history has grown since
    it was made; None otherwise: the hint is for those who use the report, and only when news."""
    folder = root / OUTPUT_DIR
    try:
        made = (folder / REPORT_FILE).stat().st_mtime
        grown = (folder / HISTORY_FILE).stat().st_mtime
    except OSError:
        return None
    return f"{OUTPUT_DIR}/{REPORT_FILE}" if made < grown else None


class Plain:
    """The summary's writer on a plain stream (outside pytest: ``caretaker run``, ``caretaker
    crashes heal``)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write_line(self, line: str, **markup: bool) -> None:
        print(line, file=self.out)

    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None:
        print(f" {title} ".center(79, sep) if title else sep * 79, file=self.out)
