"""What ``caretaker merge`` leaves (merge.py decides): the checkout's ``.caretaker/heal.patch`` and
``last-run.json`` (``"source": "merge"``, every shard's problems, one record per fix kept, each
dropped fix's problems not healed with the reason), the lines it prints, and with ``--write`` the
fixes written and committed one by one (write/writer.py), as ``pytest --heal-write`` does."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_caretaker import __version__
from pytest_caretaker.apply.rewrite import unified_diff
from pytest_caretaker.ci.last_run import FILE, SCHEMA, totals
from pytest_caretaker.ci.merge import Fix, Merged, MergeError, load
from pytest_caretaker.report.files import OUTPUT_DIR, PATCH_NAME, output_dir, write_patch
from pytest_caretaker.results import FileChange


def patch_text(merged: Merged, files: Mapping[str, bytes]) -> bytes:
    """The combined patch: one diff of every changed file, in path order."""
    return b"".join(
        unified_diff(FileChange(path, merged.before[path], after))
        for path, after in sorted(files.items())
    )


def document(merged: Merged, shards: int, seconds: float, notes: Sequence[str]) -> dict[str, Any]:
    """The merge as last-run.json holds it: every shard's problems, one record per fix."""
    records = [_record(fix) for fix in merged.kept]
    for fix, reason in merged.dropped:
        for problem in fix.problems:
            tests = [{**t, "outcome": "not healed"} for t in problem["tests"]]
            records.append(
                {**problem, "outcome": "not healed", "reason": reason, "category": "merge"}
                | {"tests": tests, "diff": "", "files": [], "patched": [], "commit": None}
            )
    records += merged.others
    records.sort(key=lambda p: p["tests"][0]["id"] if p["tests"] else "")
    return {
        "schema": SCHEMA,
        "tool": {"name": "pytest-caretaker", "version": __version__},
        "source": "merge",
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "mode": f"merge of {shards} shard{'s' if shards != 1 else ''}",
        "write": False,
        "models": sorted({m for p in records for m in [p["repairer"]] if m}),
        "interrupted": False,
        "patch": f"{OUTPUT_DIR}/{PATCH_NAME}" if merged.kept else None,
        "totals": totals(records, seconds),
        "problems": records,
        "notes": list(notes),
    }


def _record(fix: Fix) -> dict[str, Any]:
    """A kept fix as one problem: the first shard's record, with every shard's tests."""
    first, *rest = fix.problems
    record = dict(first)
    record["tests"] = [t for p in fix.problems for t in p["tests"]]
    record["shard"] = ", ".join(dict.fromkeys(p["shard"] for p in fix.problems))
    for name in ("tokens", "cost", "prompt_tokens", "completion_tokens", "attempts", "seconds"):
        record[name] = sum(p.get(name, 0) for p in fix.problems)
    if rest:
        record["notices"] = [*first["notices"], f"the same fix healed it in {len(rest) + 1} shards"]
    return record


def save(root: Path, merged: Merged, data: dict[str, Any]) -> None:
    """The checkout's heal.patch and last-run.json."""
    folder = output_dir(root)
    write_patch(root, patch_text(merged, merged.combined()) if merged.kept else b"")
    draft = folder / f".{FILE}.partial"
    draft.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    draft.replace(folder / FILE)


def say(merged: Merged) -> list[str]:
    """What the merge prints: each fix kept and each dropped, with why."""
    lines = []
    for fix in merged.kept:
        shards = ", ".join(dict.fromkeys(p["shard"] for p in fix.problems))
        tests = fix.tests
        lines.append(
            f"KEPT {', '.join(sorted(fix.refs))}: heals {len(tests)} "
            f"test{'s' if len(tests) != 1 else ''} ({shards})"
        )
    for fix, reason in merged.dropped:
        test = fix.problems[0]["tests"][0]["id"] if fix.problems[0]["tests"] else "?"
        lines.append(f"DROPPED the fix for {test} ({fix.problems[0]['shard']}): {reason}")
    return lines


def fixes_to_write(merged: Merged) -> list[Any]:
    """The kept fixes as write/writer.py writes them, in order: each one's changes against the
    files as the fixes before it left them, one commit each; an UNSURE one is not written."""
    from pytest_caretaker.results import Candidate, HealResult
    from pytest_caretaker.results import Fix as Written

    state = dict(merged.before)
    out = []
    sure = [fix for fix in merged.kept if not fix.unsure]
    for index, fix in enumerate(sure):
        now = merged.combined(sure[: index + 1])
        changes = tuple(FileChange(path, state[path], now[path]) for path in sorted(fix.files))
        state.update({path: now[path] for path in fix.files})
        first = fix.problems[0]
        candidate = Candidate((), changes, first["explanation"], tuple(first["notices"]))
        results = (HealResult(t, candidate, repairer=first["repairer"]) for t in fix.tests)
        out.append(Written(tuple(results)))
    return out


def main(
    folders: Sequence[Path],
    root: Path,
    verify: bool,
    branch: str | None = None,
    write: bool = False,
) -> int:
    """``caretaker merge``; the exit status."""
    began = time.monotonic()
    try:
        merged = load(root, folders)
    except MergeError as error:
        print(f"caretaker: {error}", file=sys.stderr)
        return 2
    if verify and merged.kept:
        from pytest_caretaker.ci.merge_verify import verify_merged

        verify_merged(root, merged)
    lines = say(merged)
    data = document(
        merged,
        len(folders),
        time.monotonic() - began,
        [line for line in lines if line.startswith("DROPPED")],
    )
    for line in lines:
        print(f"caretaker: {line}")
    if write and merged.kept:
        _write(root, merged, data, branch)
    save(root, merged, data)
    healed = data["totals"]["problems_healed"]
    where = f"{OUTPUT_DIR}/{PATCH_NAME}" if merged.kept else "no patch"
    print(f"caretaker: {healed} of {data['totals']['problems']} problems healed · {where}")
    return 0


def _write(root: Path, merged: Merged, data: dict[str, Any], branch: str | None) -> None:
    """--write: each sure fix written and committed in order; data's records say the commits."""
    from pytest_caretaker.settings import Settings
    from pytest_caretaker.write.writer import write_fixes

    settings = Settings(heal=True, write=True, branch=branch)
    written, notes = write_fixes(fixes_to_write(merged), root, settings)
    data["write"] = True
    for done in written:
        print(f"caretaker: {done.detail}")
        for record in data["problems"]:
            if record["tests"] and record["tests"][0]["id"] == done.fix.nodeids[0]:
                subject = done.detail.partition(" ")[2] if done.commit else ""
                record["commit"] = {"state": done.state, "sha": done.commit}
                record["commit"] |= {
                    "subject": subject.partition(" ")[2],
                    "detail": done.detail,
                }
    for note in notes:
        print(note)
    for fix in (fix for fix in merged.kept if fix.unsure):
        print(
            f"caretaker: not written: the fix for {fix.tests[0]} is UNSURE (its tests cannot "
            "tell it from another fix); review it in .caretaker/heal.patch"
        )
