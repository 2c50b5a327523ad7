"""``caretaker crashes test``: a pytest regression test per replayable crash, written into the
project's tests/ folder: it calls the function with the recorded arguments (as literals when
they read back equal, else as the recorded pickle) and fails while the call raises. From then
on ``pytest --heal`` owns the bug. A file that exists is left alone."""

from __future__ import annotations

import ast
import pickle
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_caretaker.project.files import project_relpath
from pytest_caretaker.runtime.records import Crash


def write_tests(root: Path, crashes: Sequence[Crash]) -> int:
    """0 when a test was written or already there for each replayable crash, else 1."""
    status = 0
    for crash in crashes:
        if not crash.replayable:
            print(f"caretaker: no test for {crash.id}: its call cannot be replayed ({crash.why})")
            status = 1
            continue
        name = re.sub(r"\W+", "_", crash.id).strip("_").lower() or "crash"
        target = root / "tests" / f"test_crash_{name}.py"
        rel = target.relative_to(root).as_posix()
        if target.exists():
            print(f"caretaker: {rel} is there already; left as it is")
            continue
        try:
            text = test_source(crash, root, name)
        except OSError as error:
            print(f"caretaker: no test for {crash.id}: its call cannot be read ({error})")
            status = 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"caretaker: wrote {rel} (a regression test for {crash.id})")
    return status


def test_source(crash: Crash, root: Path, name: str) -> str:
    where, exception = crash.where, crash.data["exception"]
    assert crash.call is not None
    data = crash.call.read_bytes()
    call = _literal_call(data)
    head, _, tail = where.qualname.partition(".")
    if where.module == "__main__":
        script = project_relpath(where.file, root) or where.file
        load = f"{head} = _script({script!r}).{head}"
    else:
        load = f"from {where.module} import {head}"
    reach = head if not tail else f"_member({head}, {tail!r})"
    record = crash.path.relative_to(root).as_posix() if crash.path.is_relative_to(root) else ""
    said = f"{exception['type']}: {exception['message']}".splitlines()[0][:120]
    imports = ["import sys", "from pathlib import Path"]
    helpers = []
    if call is None:
        imports.insert(0, "import pickle")
    if where.module == "__main__":
        imports.insert(0, "import importlib.util")
        helpers.append(SCRIPT)
    if tail:
        helpers.append(MEMBER)
    lines = [
        f'"""Regression test written by `caretaker crashes test` from {record or "a crash"}:',
        f"{crash.id} raised {said}. The recorded call must return without raising.",
        '"""',
        "",
        *imports,
        "",
        "ROOT = Path(__file__).resolve().parents[1]",
        "if str(ROOT) not in sys.path:",
        "    sys.path.insert(0, str(ROOT))",
        "",
        *("\n" + helper for helper in helpers),
        f"{load}  # noqa: E402",
        "",
        "",
        f"def test_{name}_does_not_raise():",
    ]
    if call is not None:
        lines.append(f"    {reach}({call})")
    else:
        lines.append(f"    args, kwargs = pickle.loads({data!r})")
        lines.append(f"    {reach}(*args, **kwargs)")
    return "\n".join(lines) + "\n"


SCRIPT = textwrap.dedent(
    '''
    def _script(path):
        """The script as __mp_main__: its `if __name__ == "__main__":` block does not run."""
        spec = importlib.util.spec_from_file_location("__mp_main__", ROOT / path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["__mp_main__"] = module
        spec.loader.exec_module(module)
        return module

    '''
)
MEMBER = textwrap.dedent(
    '''
    def _member(owner, path):
        """A method as the class holds it (a static or class method's function, not bound)."""
        for part in path.split("."):
            found = owner.__dict__.get(part, getattr(owner, part, None))
            owner = getattr(found, "__func__", found)
        return owner

    '''
)


def _literal_call(data: bytes) -> str | None:
    """The arguments as Python literals when each reads back equal to itself, else None."""
    try:  # classes of the project may not be importable here: then the pickle is the call
        args, kwargs = pickle.loads(data)
    except Exception:
        return None
    shown = [_literal(value) for value in args]
    shown += [f"{key}={text}" for key, value in kwargs.items() if (text := _literal(value))]
    if any(text is None for text in shown) or len(shown) != len(args) + len(kwargs):
        return None
    return ", ".join(text for text in shown if text is not None)


def _literal(value: Any) -> str | None:
    try:
        text = repr(value)
        same = ast.literal_eval(text) == value and type(ast.literal_eval(text)) is type(value)
    except Exception:
        return None
    return text if same and len(text) <= 2_000 else None
