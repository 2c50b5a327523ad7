"""``ast.parse`` that threads can share.

CPython before 3.12 can raise ``SystemError: AST constructor recursion depth mismatch`` when two
threads build ASTs at once (its recursion counter is the interpreter's, not the thread's;
gh-106905). Repairs run in threads and every guard, parser and reader parses, so each parse in
the parent process goes through one lock. The verification children are single-threaded and use
``ast`` directly.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename)
