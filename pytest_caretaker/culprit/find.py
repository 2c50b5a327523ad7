"""Find, for each failing test, its last green commit, the first failing one and the change
since, from the recorded states and (``--heal-bisect``) a bisection; off, with a reason, outside
git, in a shallow clone, or when no green state is known.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest_caretaker.culprit.states as states
from pytest_caretaker.changes.diff import Hunk
from pytest_caretaker.changes.lineage import Changes, Lineage, attribute
from pytest_caretaker.commits import Commit, Culprit
from pytest_caretaker.culprit.bisect import Prober, Run, bisect
from pytest_caretaker.culprit.git import Git
from pytest_caretaker.culprit.search import Search
from pytest_caretaker.settings import Settings
from pytest_caretaker.verify.runner import Runner

#: How far back along HEAD's first parents the recorded states are looked up.
HISTORY_DEPTH = 500
NO_GREEN = "no green state known (run pytest --heal on a green commit, or use --heal-bisect)"


@dataclass(frozen=True)
class Options:
    bisect: bool = False
    depth: int = 32
    timeout: float = 60.0  # one probe run
    sandboxed: bool = False
    network: bool = False


def for_session(
    runner: Runner, settings: Settings, failing: Sequence[str], notes: list[str], begun: float
) -> Lineage:
    """The lineage for a heal session: bisection as the settings say, within the session's
    healing time (counted from begun), in the sandbox when its verification runs are."""
    options = Options(
        settings.bisect,
        settings.bisect_depth,
        settings.timeout,
        runner.policy is not None,
        settings.sandbox_network,
    )
    budget = settings.healing_budget

    def seconds() -> float:
        return float("inf") if budget is None else budget - (time.monotonic() - begun)

    found = lineage(runner.root, failing, options, seconds)
    notes += found.notes
    return found


def lineage(
    root: Path,
    failing: Sequence[str],
    options: Options,
    seconds: Callable[[], float],
    run: Run | None = None,
) -> Lineage:
    """The lineage of the failing tests; seconds() says how much healing time is left; run
    (tests) replaces the worktree prober."""
    git = Git(root)
    state = git.state()
    if state is None:
        return Lineage(off="not a git repository (or no commit yet)")
    recorded = states.read(root)
    if not recorded and not options.bisect:
        return Lineage(off=NO_GREEN)
    if git.shallow():
        return Lineage(off="a shallow clone: its history is cut")
    _, dirty = state
    line = git.first_parents(max(HISTORY_DEPTH, options.depth))
    depth = min(options.depth, len(line) - 1)
    search = Search(list(failing), depth, dirty)
    ever_red: set[str] = set()
    for test in failing:
        known = states.known(recorded, test, line)
        green = line.index(known.green) if known.green is not None else None
        red = [line.index(sha) for sha in known.red]
        search.known(test, green, max(red, default=None))
        ever_red.update([test] if red else [])
    notes: list[str] = []
    if options.bisect and depth > 0:
        prober = None
        if run is None:
            prober = Prober(git, git.prefix(), options.timeout, options.sandboxed, options.network)
        try:
            stopped = bisect(search, line, run or prober, seconds)  # type: ignore[arg-type]
        finally:
            if prober is not None:
                prober.close()
        if stopped:
            notes.append(f"caretaker: the bisection stopped early: {stopped}")
    return _lineage(git, line, search, options, ever_red, notes)


def _lineage(
    git: Git,
    line: Sequence[str],
    search: Search,
    options: Options,
    ever_red: set[str],
    notes: list[str],
) -> Lineage:
    found = {test: search.settled(test) for test in search.tests}
    ends = [at for pair in found.values() for at in pair if at is not None and at >= 0]
    commits = git.commits(sorted({line[at] for at in ends}))
    changes: dict[str, Changes] = {}
    since: dict[str, Changes | None] = {}
    culprits: dict[str, Culprit] = {}
    for test, (green, bad) in found.items():
        if green is None:
            if options.bisect and bad >= search.depth > 0:
                culprits[test] = Culprit(red=f"red at HEAD and each of the {bad} commits before")
            elif test in ever_red:
                culprits[test] = Culprit(red="red for its whole known history")
            continue
        sha = line[green]
        if sha not in since:
            since[sha] = _changes(git, commits.get(sha, Commit(sha)))
        change = since[sha]
        if change is None:
            continue
        changes[test] = change
        culprits[test] = _culprit(change, green, bad, line, commits, search)
    off = "" if changes else NO_GREEN
    return Lineage(culprits, changes, off, tuple(notes))


def _culprit(
    change: Changes,
    green: int,
    bad: int,
    line: Sequence[str],
    commits: Mapping[str, Commit],
    search: Search,
) -> Culprit:
    if green - bad == 1:  # neighbours: the newer one broke it
        how = "bisection" if search.runs else "history"
        if bad < 0:
            return Culprit(change.green, None, "uncommitted")
        return Culprit(change.green, commits.get(line[bad], Commit(line[bad])), how)
    return Culprit(change.green, None, "range")  # named once the repair is done (Lineage.named)


def _changes(git: Git, green: Commit) -> Changes | None:
    hunks = git.diff(green.sha)
    patches = git.patches(green.sha)
    if hunks is None or patches is None:
        return None
    made: list[tuple[Commit | None, Sequence[Hunk]]] = [*patches]
    made.append((None, git.diff("HEAD") or []))
    return Changes(green, attribute(hunks, made), tuple(c for c, _ in patches))
