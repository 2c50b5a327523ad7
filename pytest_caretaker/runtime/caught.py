"""An unhandled exception as a crash record (hooks.py): named after the innermost function of
the project in its traceback, with no call to replay."""

from __future__ import annotations

import sys
from pathlib import Path

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.runtime.mode import project_root
from pytest_caretaker.runtime.records import Where, recorded, write


def record_unhandled(error: BaseException, source: str) -> Path | None:
    """The record written, or None when no frame of the traceback is in the project or a
    decorated function recorded the exception already."""
    if recorded(error):
        return None
    main = sys.argv[0] if sys.argv and sys.argv[0] else None
    root = project_root(main)
    inner = None
    tb = error.__traceback__
    while tb is not None:
        if project_relpath(tb.tb_frame.f_code.co_filename, root) is not None:
            inner = tb.tb_frame
        tb = tb.tb_next
    if inner is None:
        return None
    code = inner.f_code
    module = str(inner.f_globals.get("__name__", "__main__"))
    qualname = getattr(code, "co_qualname", code.co_name)
    where = Where(
        f"{module}:{qualname}", "", module, qualname, code.co_filename, code.co_firstlineno
    )
    return write(root, where, error, None, None, source).path
