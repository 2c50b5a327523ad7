"""The child side of a command's verification: run a Python command's target with a candidate's
files served in memory.

Started as ``python [OPTIONS] -m pytest_caretaker.run.child SPEC.json`` by check.py. It enters
the sandbox when the spec carries a policy, puts the pytest worker's import-time swap
(verify/worker.py's PatchFinder) in front of every other finder, and runs the script or module
as ``__main__`` itself, so that a patched script is swapped too (the interpreter would read the
file on disk). With "trace" on, it records which project lines ran, for the built-in repairer's
localization; when the target crashes, it records the crash as the hook does (with locals).
Like the pytest worker it imports nothing of the parent's side.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_caretaker.run.hook import CASE, write
from pytest_caretaker.verify import sandbox
from pytest_caretaker.verify.channel import MEMORY_HEADROOM
from pytest_caretaker.verify.swap import Tracer, script_code, serve


def main(argv: Sequence[str]) -> None:
    spec_path = Path(argv[0])
    spec: dict[str, Any] = json.loads(spec_path.read_text(encoding="utf-8"))
    sys.dont_write_bytecode = True
    rules = spec.get("sandbox")
    if rules is not None:  # this process waits, its child runs confined
        sandbox.enter(rules)
        sandbox.confine_run(rules, str(spec_path.parent), MEMORY_HEADROOM)
    patches = serve(spec["patches"])
    tracer = Tracer(Path(spec["root"]).resolve()) if spec["trace"] else None
    code, module = _main_module(spec["kind"], spec["name"], patches)
    sys.argv = [str(module.__file__), *spec["args"]]
    sys.modules["__main__"] = module
    if tracer is not None:
        tracer.start(CASE)
    try:
        exec(code, module.__dict__)
    except BaseException as error:
        if spec.get("record") and not isinstance(error, (SystemExit, KeyboardInterrupt)):
            with contextlib.suppress(Exception):  # the traceback matters more than the record
                write(Path(spec["record"]), Path(spec["root"]), error)
        raise
    finally:
        if tracer is not None:
            tracer.stop()
            Path(spec["trace_file"]).write_text(json.dumps(tracer.as_json()), encoding="utf-8")


def _main_module(
    kind: str, name: str, patches: dict[tuple[int, int], bytes]
) -> tuple[types.CodeType, types.ModuleType]:
    """The code of the script or module, patched if the candidate changes it, and its module."""
    module = types.ModuleType("__main__")
    if kind == "module":
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            name = f"{name}.__main__"
            spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            raise SystemExit(f"No module named {name}")
        path = spec.origin
        module.__spec__ = spec
        module.__package__ = name.rpartition(".")[0]
        sys.path[0] = os.getcwd()
    else:
        path = os.path.abspath(name)
        sys.path[0] = os.path.dirname(path)
    module.__file__ = path
    module.__dict__["__builtins__"] = __builtins__
    return script_code(path, patches), module


if __name__ == "__main__":
    main(sys.argv[1:])
