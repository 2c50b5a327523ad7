"""``ast.parse`` that threads can share.

CPython before 3.12 can raise ``SystemError: AST constructor recursion depth mismatch`` when two
threads build ASTs at once (its recursion counter is the interpreter's, not the thread's;
gh-106905). Repairs run in threads and every guard, parser and reader parses, so each parse in
the parent process goes through one lock. The lock cannot hold everyone else's parses: pytest's
assertion rewriting parses each module a repair thread imports for the first time, and a test's
own threads parse too. Beside one, a parse of ours failed as the failure it recorded (2 of 3,523
tests at load 10). The counter is reset at each parse's start, so a parse that met another
thread's is only done again. The verification children are single-threaded and use ``ast``
directly.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()
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
