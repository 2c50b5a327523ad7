"""The caretaker section at pytest's verbosity levels, apart from the default (summary.py).

Under ``-q`` one line a test: ``HEALED id → file::function``, ``UNSURE id → file::function:
why the tests cannot tell`` or ``NOT HEALED id: reason``, and what was written of a fix
(``--heal-write``) or a judgement call on a test, which are never left out. Under ``-v`` each
result adds what the search tried, its runner-ups and where its transcript is, and the session
the time each stage of healing took. At every level pytest's final line counts the heals, as
pytest-rerunfailures counts its reruns (``count``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from pytest_caretaker.report.files import transcript_path
from pytest_caretaker.text import plural

if TYPE_CHECKING:
    from pytest_caretaker.results import HealResult, Written

#: Markup of a line, as pytest's terminal writer takes it.
Markup = dict[str, bool]


def brief(result: HealResult, written: Written | None = None) -> list[tuple[str, Markup]]:
    """The -q lines of one result: its one line, then any notice of the fix (a test it
    changes what is checked of) and what was written of it."""
    if not result.healed:
        return [(f"NOT HEALED {result.nodeid}: {result.reason}", {"red": True, "bold": True})]
    patched = ", ".join(edit.ref for edit in result.edits if edit.kind != "import")
    doubt = result.candidate.doubt if result.candidate is not None else None
    if doubt is not None:  # the reader must pick: the one line says why
        head = f"UNSURE {result.nodeid} → {patched}: {doubt.reason}"
        lines = [(head, {"yellow": True, "bold": True})]
    else:
        cached = " (from cache)" if result.via == "cache" else ""
        lines = [(f"HEALED {result.nodeid} → {patched}{cached}", {"green": True, "bold": True})]
    lines += [(f"  ! the fix {notice}", {"yellow": True}) for notice in result.notices]
    if written is not None:
        lines.append((f"  {written.detail}", {"yellow": written.state != "committed"}))
    return lines


def details(result: HealResult, session: str = "") -> list[str]:
    """What -v adds to a result: the candidates tried before the fix, the runner-ups, what the
    model asked to see, and the transcript that tells the rest (prompts, replies, every
    verdict), in its session's folder."""
    lines: list[str] = []
    candidate = result.candidate
    if candidate is not None and result.via == "repair":
        if candidate.tried:
            before = max(result.spend.candidates - 1, len(candidate.tried))
            first = ", the first" if before > len(candidate.tried) else ""
            lines.append(f"  tried {plural(before, 'candidate')} before it{first}:")
            lines += [f"    {said}" for said in candidate.tried]
        if candidate.runner_ups:
            lines.append("  runner-ups, which pass a trial too:")
            lines += [f"    {said}" for said in candidate.runner_ups]
    if result.spend.asked:  # what the model was shown beyond the prompt
        lines.append(f"  {asked(result.spend.asked)}")
    lines.append(f"  transcript: {transcript_path(result.nodeid, session)}")
    return lines


def asked(items: Sequence[str], listed: bool = True) -> str:
    """What a model asked to see before proposing a fix, each with what it got (listed):
    ``asked to see 2 definitions: parse_header (shown), Foo.bar (not found)``."""
    if any(item.partition(" (")[0].endswith((".py", ".pyi")) for item in items):
        what = plural(len(items), "definition or file", "definitions or files")
    else:
        what = plural(len(items), "definition")
    return f"asked to see {what}: {', '.join(items)}" if listed else f"asked to see {what}"


def timings(seconds: Mapping[str, float]) -> str:
    """``caretaker: took 0.4 s to rerun the failures · 1.2 s to repair · …``."""
    said = " · ".join(f"{took:.1f} s {stage}" for stage, took in seconds.items())
    return f"caretaker: took {said}"


def count(terminal: Any, results: Sequence[HealResult]) -> None:
    """Add ``N healed``, ``N unsure`` and ``M not healed`` to pytest's final line (``1 failed,
    1 passed, 1 healed in 3.10s``) as pytest-rerunfailures adds ``N rerun``: each test under a
    status of its own in the terminal reporter's stats, by its failing report. A status with no
    test is not added (an UNSURE count only when there is one)."""
    failing = {
        report.nodeid: report
        for status in ("failed", "error")
        for report in terminal.stats.get(status, ())
        if isinstance(getattr(report, "nodeid", None), str)
    }
    for status in ("healed", "unsure", "not healed"):  # an UNSURE fix is not a heal
        counted = [
            failing.get(result.nodeid) or SimpleNamespace(nodeid=result.nodeid, outcome=status)
            for result in results
            if result.outcome == status
        ]
        if counted:
            terminal.stats.setdefault(status, []).extend(counted)
    # pytest keeps which statuses its final line names from when the last test ended; where it
    # was not the last collected (-x, --maxfail), it learns of these only if told.
    relearn = getattr(terminal, "_set_main_color", None)
    if callable(relearn):
        relearn()
