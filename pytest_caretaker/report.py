"""Report: the header line, the ``caretaker`` summary section, and the patch file of verified fixes.

The patch file is the only thing ``--heal`` writes, under ``.caretaker/`` at the root, which gets a
``.gitignore`` of its own so it never shows up in ``git status``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pytest_caretaker.settings import BUILTIN, Settings

if TYPE_CHECKING:  # the session imports this module; libcst only loads once there is work
    from pytest_caretaker.repair import HealResult
    from pytest_caretaker.rewrite import Applied

OUTPUT_DIR = ".caretaker"
PATCH_NAME = "heal.patch"
#: Said in the header when the built-in repairer runs because no model is configured.
CONFIGURE_HINT = "no model configured; --heal-model or CARETAKER_MODEL picks one"


class Writer(Protocol):
    def write_line(self, line: str, **markup: bool) -> None: ...
    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None: ...


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def header(settings: Settings) -> str:
    model = " → ".join(settings.models)
    label = "model" if len(settings.models) < 2 else "models"
    if "models" not in settings.sources:
        model += f" ({CONFIGURE_HINT})"
    return f"caretaker: {settings.mode} · {label} {model} · scope {settings.scope}"


def display_diff(applied: Applied) -> list[str]:
    from pytest_caretaker.rewrite import unified_diff

    text = unified_diff(applied).decode("utf-8", "replace")
    return [line.rstrip("\r") for line in text.splitlines()[1:]]


def summary(writer: Writer, results: Sequence[HealResult], patch: Path | None, root: Path) -> None:
    writer.write_sep("=", "caretaker")
    for result in sorted(results, key=lambda r: r.nodeid):
        if not result.healed:
            writer.write_line(f"NOT HEALED {result.nodeid}: {result.reason}", red=True, bold=True)
            continue
        writer.write_line(f"HEALED {result.nodeid}", green=True, bold=True)
        patched = ", ".join(edit.ref for edit in result.edits if edit.kind != "import")
        writer.write_line(f"  patched {patched}")
        for applied in result.applied:
            for line in display_diff(applied):
                if line.startswith("+") and not line.startswith("+++"):
                    writer.write_line("  " + line, green=True)
                elif line.startswith("-") and not line.startswith("---"):
                    writer.write_line("  " + line, red=True)
                else:
                    writer.write_line("  " + line)
        if result.explanation:
            writer.write_line(f"  {result.explanation}")
        writer.write_line(f"  {stats(result)}")
    writer.write_line(closing_line(results, patch, root), bold=True)


def stats(result: HealResult) -> str:
    if result.model == BUILTIN:
        return (
            f"{plural(result.attempts, 'candidate')} tried · no model, no tokens · "
            f"{result.seconds:.1f} s · {BUILTIN}"
        )
    return (
        f"{plural(result.attempts, 'attempt')} · {plural(result.tokens, 'token')} · "
        f"${result.cost:.4f} · {result.seconds:.1f} s · {result.model}"
    )


def closing_line(results: Sequence[HealResult], patch: Path | None, root: Path) -> str:
    healed = sum(1 for r in results if r.healed)
    tokens = sum(r.tokens for r in results)
    cost = sum(r.cost for r in results)
    line = f"caretaker: {healed} healed, {len(results) - healed} not healed · "
    if tokens == 0 and cost == 0:
        line += "no tokens spent"  # the built-in repairer only, or models that never answered
    else:
        line += f"{plural(tokens, 'token')} · ${cost:.4f}"
    if patch is not None:
        line += f" · fixes in {patch.relative_to(root).as_posix()}"
    return line


def combined_patch(results: Sequence[HealResult]) -> tuple[bytes, list[str]]:
    """One patch of every healed result; a fix that does not combine with the others is left out.

    Fixes combine line by line: two fixes of one function that change different lines (two bugs
    in it, each failing its own test) are both in the patch; one fix healing several tests is
    in it once.
    """
    from pytest_caretaker.rewrite import Applied, merge, unified_diff

    before: dict[str, bytes] = {}
    afters: dict[str, list[bytes]] = {}
    left_out: list[str] = []
    for result in sorted(results, key=lambda r: r.nodeid):
        if not result.healed:
            continue
        trial = {path: list(versions) for path, versions in afters.items()}
        for applied in result.applied:
            before.setdefault(applied.path, applied.before)
            trial.setdefault(applied.path, []).append(applied.after)
        if all(merge(path, before[path], v) is not None for path, v in trial.items()):
            afters = trial
        else:
            left_out.append(result.nodeid)
    chunks: list[bytes] = []
    for path in sorted(afters):
        merged = merge(path, before[path], afters[path])
        if merged is not None:
            chunks.append(unified_diff(Applied(path, before[path], merged)))
    return b"".join(chunks), left_out


def write_patch(root: Path, patch: bytes) -> Path | None:
    """Write the patch file (or remove a stale one); returns its path when written."""
    target = root / OUTPUT_DIR / PATCH_NAME
    if not patch:
        target.unlink(missing_ok=True)
        return None
    target.parent.mkdir(exist_ok=True)
    ignore = target.parent / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Written by pytest-caretaker; nothing here is meant for git.\n*\n")
    target.write_bytes(patch)
    return target
