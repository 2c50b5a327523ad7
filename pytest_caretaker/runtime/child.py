"""The child side of a runtime check: call a recorded function again with its pickled arguments
and a candidate's files served in memory; it passes when the call returns.

Started as ``python -m pytest_caretaker.runtime.child SPEC.json`` by check.py, which writes a
nonce to its stdin. The nonce is read before any of the project's code runs and printed (after
DONE) only once the call has returned, so code under test cannot forge a pass: it does not know
the nonce, and exiting with status 0 is not enough. The sandbox is entered as in run/child.py,
the swap is verify/worker.py's PatchFinder. A function of the script that was run
(``__main__``) is found by running that script as ``__mp_main__``, as multiprocessing does, so
its ``if __name__ == "__main__":`` block does not run. Like the pytest worker it imports nothing
of the parent's side.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pickle
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_caretaker.verify import sandbox
from pytest_caretaker.verify.channel import MEMORY_HEADROOM
from pytest_caretaker.verify.swap import Tracer, script_code, serve

DONE = "caretaker-replay: returned"
CASE = "replay"


def main(argv: Sequence[str]) -> None:
    nonce = sys.stdin.readline().strip()  # before any code of the project runs
    spec_path = Path(argv[0])
    spec: dict[str, Any] = json.loads(spec_path.read_text(encoding="utf-8"))
    sys.dont_write_bytecode = True
    os.environ["CARETAKER_RUNTIME"] = "off"  # the replayed function records and heals nothing
    rules = spec.get("sandbox")
    if rules is not None:  # this process waits, its child runs confined
        sandbox.enter(rules)
        sandbox.confine_run(rules, str(spec_path.parent), MEMORY_HEADROOM)
    patches = serve(spec["patches"])
    sys.path[:] = spec["sys_path"]
    tracer = Tracer(Path(spec["root"]).resolve()) if spec["trace"] else None
    if tracer is not None:
        tracer.start(CASE)
    try:
        function = _function(spec, patches)
        args, kwargs = pickle.loads(Path(spec["call"]).read_bytes())
        result = function(*args, **kwargs)
        if spec["coroutine"]:
            import asyncio

            result = asyncio.run(result)
    finally:
        if tracer is not None:
            tracer.stop()
            Path(spec["trace_file"]).write_text(json.dumps(tracer.as_json()), encoding="utf-8")
    try:
        shown = repr(result)[:200]
    except Exception:  # a result's __repr__ is the project's code too
        shown = "<result>"
    print(f"\n{DONE} {shown}", flush=True)
    print(nonce, flush=True)


def _function(spec: dict[str, Any], patches: dict[tuple[int, int], bytes]) -> Any:
    """The function the record names, as defined in the (patched) module, undecorated."""
    if spec["module"] == "__main__":
        module = _main_script(spec["file"], patches)
    else:
        module = importlib.import_module(spec["module"])
    found: Any = module
    for part in spec["qualname"].split("."):
        space = getattr(found, "__dict__", {})
        found = space[part] if part in space else getattr(found, part)
    while True:
        if isinstance(found, (staticmethod, classmethod)):
            found = found.__func__
        elif hasattr(found, "__wrapped__"):
            found = found.__wrapped__
        else:
            return found


def _main_script(path: str, patches: dict[tuple[int, int], bytes]) -> types.ModuleType:
    """The script that was run, as ``__mp_main__`` (also reachable as ``__main__``, which the
    pickles of its classes name)."""
    module = types.ModuleType("__mp_main__")
    module.__file__ = path
    module.__dict__["__builtins__"] = __builtins__
    sys.modules["__mp_main__"] = sys.modules["__main__"] = module
    exec(script_code(path, patches), module.__dict__)
    return module


if __name__ == "__main__":
    main(sys.argv[1:])
