"""pytest-caretaker: repair failing tests: find the bug, propose a fix, prove it, report it.

The packages, in the order one heal goes through them (README "How it works inside"):

- ``plugin``, ``session``: the pytest front end (options from one table in ``options``);
  failures recorded during the run, healing after it.
- ``engine``: baseline rerun → problems → the chain per problem → select → patch, write.
- ``problem``: a Problem (failing cases of one root cause + regression set), the Task a
  repairer gets, the Check and Repairer protocols. ``results``: the values between stages.
- ``record``: a failure as data, its secrets redacted. ``project``: the files, localization.
- ``repair``: the chain, the proof every proposal passes, clusters, remembered fixes.
- ``llm``, ``builtin``: the two kinds of repairer (a model; small edits without one).
- ``guard``: refusals before anything runs. ``apply``: edits applied in memory with libcst.
- ``verify``: the Check of a pytest case, run in other processes.
- ``selection``, ``report``, ``write``: the fixes that hold together, what the user sees,
  and ``--heal-write``.

Nothing is imported here: this module is loaded by every pytest run that has the plugin.
"""

__version__ = "0.1.0"
