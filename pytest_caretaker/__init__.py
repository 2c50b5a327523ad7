"""pytest-caretaker: repair failing tests: find the bug, propose a fix, prove it, report it.

The packages, in the order one heal goes through them (docs/pages/internals.md):

- ``plugin``, ``session``: the pytest front end (options from one table in ``options``);
  failures recorded during the run, healing after it; ``addopts`` (the options a child keeps),
  ``unselected`` (what the run left out), ``review`` (--heal-review's question).
- ``cli``: the ``caretaker`` command (``caretaker report``).
- ``engine``: baseline rerun → problems → the chain per problem → select → patch, write.
- ``problem``: a Problem (failing cases of one root cause + regression set), the Task a
  repairer gets, the Check and Repairer protocols. ``results``: the values between stages.
- ``record``: a failure as data, its secrets redacted. ``project``: the files, localization.
- ``repair``: the chain, the proof every proposal passes, clusters, remembered fixes.
- ``llm``, ``builtin``: the two kinds of repairer (a model; small edits without one).
- ``guard``: refusals before anything runs. ``apply``: edits applied in memory with libcst.
- ``verify``: the Check of a pytest case, run in other processes, sandboxed on Linux.
- ``selection``, ``regression``, ``report``, ``write``: the fixes that hold together, what
  must keep passing, what the user sees, and ``--heal-write``. ``history``: one line per
  result in ``.caretaker/history.jsonl``, and ``caretaker report``'s page.

Nothing is imported here: this module is loaded by every pytest run that has the plugin.
"""

__version__ = "0.1.0"
