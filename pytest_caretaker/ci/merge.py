"""``caretaker merge DIR…``: one patch from the fixes of a test suite run in shards.

Each DIR is one shard's ``.caretaker/`` folder as its CI job uploaded it. Its ``last-run.json``
holds each problem with its fix as a diff against the commit every shard ran (relative paths, so
the shards' own folders do not matter) and the tests that passed there. In the project's checkout
at that commit, the merge:

1. applies each fix's diff to the checkout's files, in memory (a diff that does not apply, say a
   shard that ran another commit, is dropped with that reason);
2. takes fixes that change the files alike as one fix, with every shard's tests (one bug failing
   in three shards, fixed alike three times, is one fix);
3. keeps one fix per root cause: fixes that change the same definition, or the same lines, are
   one bug's, and the one that heals the most tests (then the cheapest, then the first by test
   id) is kept; each other is dropped, naming the fix kept and its test;
4. with ``--verify`` (merge_verify.py), runs the combined patch against the failing tests and
   every test any shard passed whose module imports a changed file, and drops a fix that breaks
   one, naming it;
5. writes the checkout's ``.caretaker/heal.patch`` and ``.caretaker/last-run.json``
   (``"source": "merge"``, every shard's problems), which ``caretaker summary`` reads, and prints
   what it kept and dropped. ``--write`` then writes the fixes and commits each (write/writer.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_caretaker.apply.rewrite import merge as merge_files
from pytest_caretaker.ci.last_run import FILE, HEALED, read_last_run
from pytest_caretaker.ci.shard_diffs import apply_files
from pytest_caretaker.report.files import OUTPUT_DIR


class MergeError(Exception):
    """The merge cannot start: the one-line reason."""


@dataclass
class Fix:
    """One change of the checkout and the shards' problems it heals."""

    files: dict[str, bytes]  # path -> the file after the fix
    problems: list[dict[str, Any]] = field(default_factory=list)  # each with its "shard"

    @property
    def tests(self) -> list[str]:
        sure = (*HEALED, "unsure")
        return [t["id"] for p in self.problems for t in p["tests"] if t["outcome"] in sure]

    @property
    def unsure(self) -> bool:
        """Whether a shard said the tests cannot tell it from another fix: never committed
        without review (``pytest --heal-review``)."""
        return any(problem["outcome"] == "unsure" for problem in self.problems)

    @property
    def refs(self) -> set[str]:
        return {ref for problem in self.problems for ref in problem["patched"]}

    @property
    def cost(self) -> tuple[int, float]:
        return sum(p["tokens"] for p in self.problems), sum(p["cost"] for p in self.problems)

    def rank(self) -> tuple[int, int, float, str]:
        tokens, cost = self.cost
        return (-len(self.tests), tokens, cost, min(self.tests, default=""))


@dataclass
class Merged:
    """What the merge decided."""

    before: dict[str, bytes]  # the checkout's files the fixes change
    kept: list[Fix]
    dropped: list[tuple[Fix, str]]  # with why, naming a test
    others: list[dict[str, Any]]  # the problems with no fix (not healed in their shard)
    passed: dict[str, str]  # test id -> the shard it passed in

    def combined(self, fixes: Sequence[Fix] | None = None) -> dict[str, bytes]:
        """Every file the fixes change, with all their changes (they combine: choose made sure)."""
        chosen = self.kept if fixes is None else fixes
        out: dict[str, bytes] = {}
        for path in sorted({p for fix in chosen for p in fix.files}):
            afters = [fix.files[path] for fix in chosen if path in fix.files]
            combined = merge_files(path, self.before[path], afters)
            assert combined is not None, path
            out[path] = combined
        return out


def load(root: Path, folders: Sequence[Path]) -> Merged:
    """Read the shards' folders and choose the fixes; MergeError when a folder cannot be read."""
    before: dict[str, bytes] = {}
    fixes: list[Fix] = []
    dropped: list[tuple[Fix, str]] = []
    others: list[dict[str, Any]] = []
    passed: dict[str, str] = {}
    for folder in folders:
        shard = folder.name if folder.name != OUTPUT_DIR else folder.parent.name or str(folder)
        try:
            data = read_last_run(root, folder / FILE)
        except ValueError as error:
            raise MergeError(f"{folder}: {error}") from None
        passed.update({test: shard for test in data.get("passed", ())})
        for problem in data["problems"]:
            problem = {**problem, "shard": shard}
            if problem["outcome"] not in (*HEALED, "unsure") or not problem["diff"]:
                others.append(problem)
                continue
            try:
                files = apply_files(root, problem["files"], before)
            except ValueError as error:
                dropped.append((Fix({}, [problem]), f"its diff does not apply here: {error}"))
                continue
            if not files:
                dropped.append((Fix({}, [problem]), "its record holds no file's diff"))
                continue
            same = next((fix for fix in fixes if fix.files == files), None)
            if same is not None:
                same.problems.append(problem)
            else:
                fixes.append(Fix(files, [problem]))
    kept, refused = choose(fixes, before)
    return Merged(before, kept, dropped + refused, others, passed)


def choose(fixes: Sequence[Fix], before: Mapping[str, bytes]) -> tuple[list[Fix], list[Any]]:
    """One fix per root cause, best first (Fix.rank); the others with why."""
    kept: list[Fix] = []
    dropped: list[tuple[Fix, str]] = []
    for fix in sorted(fixes, key=Fix.rank):
        rival = next((other for other in kept if other.refs & fix.refs), None)
        if rival is None:
            rival = next((other for other in kept if not _combine(before, [*kept, fix])), None)
        if rival is None:
            kept.append(fix)
            continue
        tests = rival.tests
        dropped.append(
            (
                fix,
                f"another fix of {', '.join(sorted(rival.refs & fix.refs)) or 'the same lines'} "
                f"is kept: it heals {len(tests)} test{'s' if len(tests) != 1 else ''} "
                f"({tests[0] if tests else 'none'})",
            )
        )
    return kept, dropped


def _combine(before: Mapping[str, bytes], fixes: Sequence[Fix]) -> bool:
    for path in {p for fix in fixes for p in fix.files}:
        afters = [fix.files[path] for fix in fixes if path in fix.files]
        if merge_files(path, before[path], afters) is None:
            return False
    return True
