"""Culprit: the history a failing test sits in.

Each ``--heal`` session records the commit it ran at and every test's outcome (states.py); a
later session finds there the last commit at which a failing test passed, or, with
``--heal-bisect``, finds it by running the test at earlier commits in git worktrees
(bisect.py, search.py). The diff since that commit, attributed to its commits
(``pytest_caretaker.changes``), ranks the suspects, feeds the built-in repairer's partial reverts
and the model's prompt, and names the commit that broke the test (find.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_caretaker.changes.lineage import Lineage
    from pytest_caretaker.settings import Settings
    from pytest_caretaker.verify.runner import Runner


def lineage_of(
    runner: Runner,
    settings: Settings,
    failing: Sequence[str],
    notes: list[str],
    begun: float,
) -> Lineage:
    """The lineage of a session's failing tests (find.py, imported only now: a probe child
    imports this package and needs none of it); notes gets what the search has to say."""
    from pytest_caretaker.culprit.find import for_session

    return for_session(runner, settings, failing, notes, begun)
