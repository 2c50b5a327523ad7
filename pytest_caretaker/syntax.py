"""``ast.parse`` that threads can share.

CPython 3.11 can raise ``SystemError: AST constructor recursion depth mismatch`` when two threads
build ASTs at once (its recursion counter is the interpreter's, not the thread's; gh-106905;
3.10 has no counter, 3.12 keeps it per thread). Caretaker's threads parse while pytest's main
thread goes on: the thread that imports the heal's modules at the first failure (pytest
rewrites their assertions: caretaker is a plugin), and the repairs after the run. pytest's own
parses are unlocked: a failure's traceback, formatted beside that import, ended a session in
INTERNALERROR (1 of 3,509 tests in CI). So from a heal's first failure to its end
(``hold``/``release``), every ``ast.parse`` of the process goes through one lock. Parses that
bypass ``ast.parse`` (``compile`` with ``PyCF_ONLY_AST``, in a test's own thread) can still meet
ours; the counter is reset at each parse's start, so a parse of ours that met one is only done
again. The verification children are single-threaded and use ``ast`` directly.
"""

from __future__ import annotations

import ast
import sys
import threading
from typing import Any

#: Whether this interpreter shares the AST constructor's counter between threads.
SHARED_COUNTER = sys.version_info[:2] == (3, 11)
_PARSE = ast.parse  # the standard library's own, never the locked one
_LOCK = threading.RLock()
_holders = 0
#: How often a parse that met another thread's is done again. Each meeting is a thread switch
#: inside the parse; with two threads parsing without pause a parse met the other's 2 times in 5.
ATTEMPTS = 20
_MISMATCH = "AST constructor recursion depth mismatch"


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, one thread at a time."""
    with _LOCK:
        for _ in range(ATTEMPTS - 1):
            try:
                return ast.parse(source, filename)
            except SystemError as error:
                if _MISMATCH not in str(error):
                    raise
        return ast.parse(source, filename)


def _locked_parse(
    source: Any, filename: Any = "<unknown>", mode: str = "exec", **options: Any
) -> Any:
    with _LOCK:
        return _PARSE(source, filename, mode, **options)


def hold() -> None:
    """From now until the matching ``release``, every ``ast.parse`` of the process takes the
    lock ``parse`` takes (where the counter is shared; holds nest)."""
    global _holders
    with _LOCK:
        _holders += 1
        if SHARED_COUNTER and ast.parse is _PARSE:
            ast.parse = _locked_parse


def release() -> None:
    """End one ``hold``; the last gives ``ast.parse`` back as it was."""
    global _holders
    with _LOCK:
        _holders = max(0, _holders - 1)
        if not _holders and ast.parse is _locked_parse:
            ast.parse = _PARSE
