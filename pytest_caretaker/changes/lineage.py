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
from pytest_caretaker.commits import Commit, Culprit
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import Executed, HealResult

#: Characters of the change a prompt shows at most.
MAX_SHOWN = 4_000


@dataclass(frozen=True)
class Changes:
    green: Commit  # the last commit at which the case passed
    hunks: tuple[Hunk, ...]  # from there to the working tree, attributed
    commits: tuple[Commit, ...] = ()  # after green up to HEAD, oldest first

    def summary(self) -> str:
        """The change in a few lines, for the transcript."""
        made = "".join(f"\n- {_said(c)} ({c.author}, {c.date})" for c in self.commits)
        files = sorted({h.path for h in self.hunks})
        return (
            f"Last green commit: {_said(self.green)}; {len(self.hunks)} hunks since, in "
            f"{', '.join(files) or 'no file'}; commits since:{made or ' none (uncommitted only)'}"
        )

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

    def named(
        self, results: Sequence[HealResult], executed: Mapping[str, Executed]
    ) -> list[HealResult]:
        """The results with their culprits. Where the history gave a range, not the first
        failing commit: the commit a healing revert undid, else the one the change points at
        (culprit_from), else none (the range is said)."""
        named: list[HealResult] = []
        for result in results:
            culprit = self.culprits.get(result.nodeid)
            changes = self.changes.get(result.nodeid)
            if culprit is not None and changes is not None and culprit.how == "range":
                culprit = _narrowed(culprit, changes, result, executed.get(result.nodeid))
            named.append(replace(result, culprit=culprit) if culprit is not None else result)
        return named


def _narrowed(
    culprit: Culprit, changes: Changes, result: HealResult, executed: Executed | None
) -> Culprit:
    known = {c.sha: c for c in changes.commits}
    reverted = result.candidate.reverts if result.candidate is not None else ()
    undone = [known[sha] for sha in reverted if sha in known]
    if undone:  # the latest of them: the case broke once they all were in
        latest = max(undone, key=changes.commits.index)
        return replace(culprit, first_failing=latest, how="revert")
    pointed = culprit_from(changes, executed)
    return replace(culprit, first_failing=pointed, how="change") if pointed else culprit


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


#: How a first failing commit was found, as a report says it.
FOUND_BY = {
    "bisection": "found by bisection",
    "history": "from the recorded runs",
    "revert": "the commit the healing revert undoes",
    "change": "the only commit that changed the code the test ran",
}


def culprit_line(culprit: Culprit) -> str:
    """The culprit in one line: the first failing commit (sha, subject, author, date) and the
    last green one, or the range they lie in, or that the test was never seen green."""
    if culprit.red:
        return culprit.red
    green = f"last green {_said(culprit.green)}"
    if culprit.how == "uncommitted":
        return f"broke in the uncommitted changes; {green}"
    first = culprit.first_failing
    if first is None:
        return f"broke after {_said(culprit.green)} (last green); the commit is not known"
    when = f"{first.author}, {first.date[:10]}" if first.author else first.date[:10]
    how = FOUND_BY.get(culprit.how, culprit.how)
    return f"broke in {_said(first)} ({when}; {how}); {green}"


def _said(commit: Commit | None) -> str:
    if commit is None:
        return "not committed yet"
    return f'{commit.short} "{commit.subject}"' if commit.subject else commit.short
