"""Changes: what changed since a failing case last passed, as plain values.

The diff from the last green commit to the working tree, cut into hunks, each with the commit
that made it (diff.py); per failing case, that diff and the case's culprit (lineage.py). Git
itself is read by ``pytest_caretaker.culprit``; nothing here runs a process.
"""
