"""The child side of a runtime check: call a recorded function again with its pickled arguments
and a candidate's files served in memory; it passes when the call returns. The function's
recorded good calls are made first, each compared with the result it had (verify/behaviour.py's
``same``: ==, floats within a relative 1e-9, objects by their attributes) and told in a line
check.py reads.

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
from pytest_caretaker.verify.behaviour import same
from pytest_caretaker.verify.channel import MEMORY_HEADROOM
from pytest_caretaker.verify.swap import Tracer, script_code, serve

DONE = "caretaker-replay: returned"
GOOD = "good"  # a line ``<nonce> good <index> {"same": …, "now": …}`` per recorded good call
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
        if tracer is not None:  # the trace is the recorded call's, not the good calls'
            tracer.stop()
        for index, good in enumerate(spec.get("good", [])):
            again = json.dumps(_again(function, good, spec["coroutine"]))
            print(f"{nonce} {GOOD} {index} {again}", flush=True)
        if tracer is not None:
            tracer.start(CASE)
        args, kwargs = pickle.loads(Path(spec["call"]).read_bytes())
        result = function(*args, **kwargs)
        if spec["coroutine"]:
            import asyncio

            result = asyncio.run(result)
    finally:
        if tracer is not None:
            tracer.stop()
            Path(spec["trace_file"]).write_text(json.dumps(tracer.as_json()), encoding="utf-8")
    print(f"\n{DONE} {_shown(result)}", flush=True)
    print(nonce, flush=True)


def _again(function: Any, good: dict[str, str], coroutine: bool) -> dict[str, object]:
    """A recorded good call made again: whether it gives what it returned when recorded, and
    what it gives now. Its lines start with the nonce: the code under test cannot forge one."""
    try:
        args, kwargs = pickle.loads(Path(good["args"]).read_bytes())
        expected = pickle.loads(Path(good["returned"]).read_bytes())
    except Exception as error:  # a class of the project that no longer unpickles
        return {"same": False, "now": f"cannot be read back ({_said(error)})"}
    try:
        result = function(*args, **kwargs)
        if coroutine:
            import asyncio

            result = asyncio.run(result)
    except Exception as error:  # what the call raises is what it gives now
        return {"same": False, "now": f"raised {_said(error)}"}
    try:
        alike = same(expected, result)
    except Exception:  # an __eq__ that raises: not known to be equal
        alike = False
    return {"same": alike, "now": _shown(result)}


def _shown(value: object) -> str:
    try:
        return repr(value)[:200]
    except Exception:  # a result's __repr__ is the project's code too
        return f"<{type(value).__name__}>"


def _said(error: BaseException) -> str:
    message = str(error).splitlines()[0][:150] if str(error) else ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


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
