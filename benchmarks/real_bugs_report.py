"""The report of benchmarks/real_bugs.py: a row per bug, each revision side by side, and the
totals (per project too), as text and as data for --json."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

CHARS_PER_TOKEN = 4


@dataclass
class Result:
    bug: str
    project: str
    revision: str
    oracle: str = "-"  # "healed", "unsure", "not healed", "unproved", "error"
    oracle_reason: str = ""
    changed: int = 0  # definitions the developer changed that the buggy source has
    shown: int = 0  # of those, shown by the first prompt
    missing: list[str] = field(default_factory=list)
    # shown by the first prompt of some problem (caretaker heals each problem of a run apart:
    # a fix of two failing tests in two functions is two problems, each with its own prompt)
    shown_any: int = 0
    reached: list[str] = field(default_factory=list)  # of functions, what the failing tests reach
    prompt_chars: int = 0
    requests: int = 0
    builtin: str = "-"  # "right", "wrong", "unsure", "not healed", "unproved", "error"
    builtin_reason: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


SHORT = {"healed": "HEALED", "not healed": "not", "unsure": "UNSURE", "unproved": "unproved"}
BUILTIN = ("right", "wrong", "unsure", "not healed", "unproved", "error")


def table(results: list[Result], labels: list[str]) -> dict[str, Any]:
    """Print a row per bug (each revision side by side) and the totals; return the totals."""
    by_bug: dict[str, dict[str, Result]] = {}
    for r in results:
        by_bug.setdefault(r.bug, {})[r.revision] = r
    print(f"{'':<26}" + "".join(f" | {label[:35]:<35}" for label in labels))
    columns = f" | {'oracle':<9} {'shown':>5} {'chars':>7} {'builtin':<10}"
    print(f"{'bug':<26}" + columns * len(labels))
    for bug, per in by_bug.items():
        line = f"{bug:<26}"
        for label in labels:
            r = per.get(label)
            if r is None:
                line += f" | {'':<35}"
                continue
            word = SHORT.get(r.oracle, r.oracle)
            more = r.shown_any - r.shown
            shown = f"{r.shown}/{r.changed}" + (f"+{more}" if more > 0 else "")
            line += f" | {word:<9} {shown:>5} {r.prompt_chars:>7,} {r.builtin:<10}"
        print(line)
    totals = {}
    for label in labels:
        mine = [r for r in results if r.revision == label]
        totals[label] = summary(mine)
        print(f"\n{label}: {totals[label]['line']}")
        for project in dict.fromkeys(r.project for r in mine):
            print(f"  {project}: {summary([r for r in mine if r.project == project])['line']}")
        print("  oracle not healed, by reason:")
        for reason, count in totals[label]["oracle_reasons"].items():
            print(f"    {count:>3}  {reason}")
    return totals


def summary(results: list[Result]) -> dict[str, Any]:
    asked = [r for r in results if r.oracle != "-"]  # the oracle measured (not --only builtin)
    n = len(asked) or 1
    healed = sum(r.oracle == "healed" for r in asked)
    every = sum(r.shown == r.changed for r in asked)
    every_any = sum(max(r.shown_any, r.shown) == r.changed for r in asked)
    shown, changed = sum(r.shown for r in asked), sum(r.changed for r in asked)
    shown_any = sum(max(r.shown_any, r.shown) for r in asked)
    reach = [
        (len(r.reached), len([e for e in r.reached if e not in r.missing]) if r.requests else 0)
        for r in asked
    ]
    every_reached = sum(total == found for total, found in reach)
    reached, found = sum(total for total, _ in reach), sum(found for _, found in reach)
    chars = [r.prompt_chars for r in asked if r.prompt_chars]
    median = int(statistics.median(chars)) if chars else 0
    builtin = {word: sum(r.builtin == word for r in results) for word in BUILTIN}
    reasons = Counter(kind(r.oracle_reason) for r in asked if r.oracle != "healed")
    oracle = (
        f"oracle healed {healed} ({100 * healed / n:.0f} %) · "
        f"first prompt shows every changed definition {every} ({100 * every / n:.0f} %), "
        f"definitions {shown}/{changed} ({100 * shown / max(changed, 1):.0f} %); "
        f"each problem's first prompt {every_any} ({100 * every_any / n:.0f} %), "
        f"definitions {shown_any}/{changed} ({100 * shown_any / max(changed, 1):.0f} %); "
        f"of what the failing tests reach {every_reached} ({100 * every_reached / n:.0f} %), "
        f"definitions {found}/{reached} ({100 * found / max(reached, 1):.0f} %) · "
        f"prompt median {median:,} chars (~{median // CHARS_PER_TOKEN:,} tokens) · "
    )
    line = (
        f"{len(results)} bugs · {oracle if asked else ''}"
        f"builtin right {builtin['right']}, wrong {builtin['wrong']}, unsure {builtin['unsure']}, "
        f"not healed {builtin['not healed']}"
        + "".join(f", {word} {builtin[word]}" for word in ("unproved", "error") if builtin[word])
    )
    return {
        "bugs": len(results), "oracle_healed": healed, "every_shown": every,
        "every_shown_by_problems": every_any, "definitions_shown_by_problems": shown_any,
        "every_reached_shown": every_reached, "definitions_reached": reached,
        "definitions_reached_shown": found,
        "definitions_shown": shown, "definitions_changed": changed, "median_prompt_chars": median,
        "builtin": builtin, "oracle_reasons": dict(reasons.most_common()), "line": line,
    }  # fmt: skip


def kind(reason: str) -> str:
    """A reason without its particulars (names, paths, numbers), to count alike ones."""
    if reason.endswith(" still fails"):
        return "a failing test still fails"
    reason = re.sub(r"\d[\d,.]*", "N", reason)
    for mark in (": ", " `", " ("):
        if mark in reason[12:]:
            reason = reason[: 12 + reason[12:].index(mark)]
    return reason[:70] or "(no reason)"


def corpus(projects: dict[str, Any], bugs: list[Any]) -> None:
    """Print the corpus: per project its bugs, their years and the median fix; then the sizes."""
    head = f"{'project':<16} {'bugs':>4}  {'years':<9}  {'tests':>5}"
    print(head + "  median fix (files, definitions, hunks, lines)")
    for name in projects:
        mine = [b for b in bugs if b.project == name]
        if not mine:
            continue
        years = f"{min(b.date for b in mine)[:4]}–{max(b.date for b in mine)[:4]}"
        sizes = [
            [len(b.files) for b in mine],
            [len(b.functions) + len(b.added) for b in mine],
            [b.hunks for b in mine],
            [b.lines for b in mine],
        ]
        tests = sum(len(b.tests) for b in mine)
        medians = ", ".join(f"{statistics.median(values):g}" for values in sizes)
        print(f"{name:<16} {len(mine):>4}  {years:<9}  {tests:>5}  {medians}")
    counts = {
        "one definition changed": sum(len(b.functions) + len(b.added) == 1 for b in bugs),
        "several files": sum(len(b.files) > 1 for b in bugs),
        "adds a definition": sum(bool(b.added) for b in bugs),
        "imports": sum(b.imports for b in bugs),
        "module constants": sum(b.constants for b in bugs),
        "other top-level statements": sum(b.module for b in bugs),
    }
    print(f"\n{len(bugs)} bugs · " + " · ".join(f"{k} {v}" for k, v in counts.items()))
