"""Culprit: the history a failing test sits in.

Each ``--heal`` session records the commit it ran at and every test's outcome (states.py); a
later session finds there the last commit at which a failing test passed, or, with
``--heal-bisect``, finds it by running the test at earlier commits in git worktrees
(bisect.py, search.py). The diff since that commit, attributed to its commits
(``pytest_caretaker.changes``), ranks the suspects, feeds the built-in repairer's partial reverts
and the model's prompt, and names the commit that broke the test (find.py).
"""

#: The variable a bisection probe (probe.py) reads its tests and its output file from.
PROBE_ENV = "CARETAKER_PROBE"
