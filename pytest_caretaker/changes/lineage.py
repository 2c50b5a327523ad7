"""Lineage: per failing case, the last green commit, the change since it and the culprit.

``Changes`` is the diff from a green commit to the working tree, each hunk attributed to the
commit that made it (``attribute``: the commit whose own diff added or removed the most of the
hunk's lines, the latest on a tie; a hunk of the working tree not yet committed has none). It
ranks suspects (``boost``: a function the change touched goes before those it did not) and shows
the model the change, trimmed to the suspects (``shown``). ``Lineage`` holds it per case, with
the case's culprit; ``named`` sets each result's culprit once the repairs are done, from the
commit a revert undid when the history alone did not tell which one broke the case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from pytest_caretaker.changes.diff import Hunk
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Commit, Culprit, Executed, HealResult

#: Characters of the change a prompt shows at most.
MAX_SHOWN = 4_000


@dataclass(frozen=True)
class Changes:
    green: Commit  # the last commit at which the case passed
    hunks: tuple[Hunk, ...]  # from there to the working tree, attributed
    commits: tuple[Commit, ...] = ()  # after green up to HEAD, oldest first

    def within(self, path: str, start: int, end: int) -> list[Hunk]:
        return [h for h in self.hunks if h.path == path and h.touches(start, end)]

    def touched(self, suspect: Suspect, files: ProjectFiles) -> list[Hunk]:
        source = files.get(suspect.path)
        found = source.find(suspect.qualname) if source is not None else None
        return [] if found is None else self.within(suspect.path, found.start, found.end)

    def boost(self, suspects: Sequence[Suspect], files: ProjectFiles) -> tuple[Suspect, ...]:
        """The suspects the change touched first (in their order), then the others."""
        changed = [s for s in suspects if self.touched(s, files)]
        return (*changed, *(s for s in suspects if s not in changed))

    def shown(self, suspects: Sequence[Suspect], files: ProjectFiles) -> str:
        """The change within the suspects, with the commits that made it, for a prompt; empty
        when it touched none of them."""
        parts: list[str] = []
        for suspect in suspects:
            for hunk in self.touched(suspect, files):
                made = _said(hunk.commit)
                head = f"{suspect.ref}, line {hunk.new_start} ({made}):"
                parts.append(f"{head}\n{hunk.text()}")
        if not parts:
            return ""
        text = "\n".join(dict.fromkeys(parts))
        if len(text) > MAX_SHOWN:
            text = text[:MAX_SHOWN] + "\n… (cut)\n"
        return (
            f"\nThe test passed at commit {_said(self.green)}. What changed since, in the "
            f"functions above (- as it was then, + as it is now):\n{text}"
        )


@dataclass(frozen=True)
class Lineage:
    """What the history tells of each failing case; off (with why) when it tells nothing."""

    culprits: Mapping[str, Culprit] = field(default_factory=dict)
    changes: Mapping[str, Changes] = field(default_factory=dict)  # by case
    off: str = ""  # why nothing is known (no git, a shallow clone, no green state)
    notes: tuple[str, ...] = ()

    def changes_for(self, nodeid: str) -> Changes | None:
        return self.changes.get(nodeid)

    def named(self, results: Sequence[HealResult]) -> list[HealResult]:
        """The results with their culprits; a healed revert names the commit it undid when the
        history gave a range, not the first failing commit."""
        return [_named(r, self.culprits.get(r.nodeid), self.changes.get(r.nodeid)) for r in results]


def _named(result: HealResult, culprit: Culprit | None, changes: Changes | None) -> HealResult:
    if culprit is None:
        return result
    reverted = result.candidate.reverts if result.candidate is not None else ()
    if changes is not None and reverted and culprit.how not in ("bisection", "history"):
        known = {c.sha: c for c in changes.commits}
        undone = [known[sha] for sha in reverted if sha in known]
        if undone:  # the latest of them: the case broke once they all were in
            culprit = replace(culprit, first_failing=undone[-1], how="revert")
    return replace(result, culprit=culprit)


def attribute(
    hunks: Sequence[Hunk], made: Sequence[tuple[Commit | None, Sequence[Hunk]]]
) -> tuple[Hunk, ...]:
    """Each hunk with the commit that made it: of made (each commit, oldest first, and None for
    the working tree, with its hunks), the one whose hunks added or removed the most of its lines
    on the same file; the latest on a tie; None when no commit shares a line with it."""
    found: list[Hunk] = []
    for hunk in hunks:
        best: tuple[int, int] = (0, -1)
        commit: Commit | None = None
        for order, (who, theirs) in enumerate(made):
            score = _overlap(hunk, [h for h in theirs if h.path in (hunk.path, hunk.old_path)])
            if score and (score, order) >= best:
                best, commit = (score, order), who
        found.append(hunk.attributed(commit))
    return tuple(found)


def _overlap(hunk: Hunk, theirs: Sequence[Hunk]) -> int:
    added = Counter(line.strip() for h in theirs for line in h.new)
    removed = Counter(line.strip() for h in theirs for line in h.old)
    mine_added = Counter(line.strip() for line in hunk.new if line.strip())
    mine_removed = Counter(line.strip() for line in hunk.old if line.strip())
    return sum((mine_added & added).values()) + sum((mine_removed & removed).values())


def culprit_from(changes: Changes, executed: Executed | None) -> Commit | None:
    """The commit the change points at without a bisection: the only commit since green, else
    the only one whose hunks lie on lines the failing case ran (or, if it ran none of them, in
    the files it ran); None when several did."""
    if len(changes.commits) == 1:
        return changes.commits[0]
    lines = executed.lines if executed is not None else {}
    ran = [h for h in changes.hunks if any(h.touches(n, n) for n in lines.get(h.path, ()))]
    ran = ran or [h for h in changes.hunks if h.path in lines]
    made = {h.commit for h in ran if h.commit is not None}
    return made.pop() if len(made) == 1 else None


def _said(commit: Commit | None) -> str:
    if commit is None:
        return "not committed yet"
    return f'{commit.short} "{commit.subject}"' if commit.subject else commit.short
