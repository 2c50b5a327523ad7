"""Stand-in values end to end (#30): a scripted model answers each failing test with a value that
only pretends to be the right one (a float whose ``__eq__`` says yes to anything, ``mock.ANY``,
``mock.sentinel``, a configured ``MagicMock``, an ``__eq__`` that answers ``not False``). No test
beside them checks the value's type, so only the guard stands between each and a HEALED; each
ends NOT HEALED with the refusal the model was given, and nothing is written. The one real fix
beside them, a Point.__eq__ that compares every field, heals and is written."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import pytest
from helpers import heal_args, snapshot

from pytest_caretaker.testing import Scripted, ScriptedServer, tool_call

#: name -> (the body of f<n>(x), returning a wrong value made to pass, the refusal it gets)
STAND_INS: dict[str, tuple[str, str]] = {
    "a float equal to everything": (
        "class Total(float):\n    def __eq__(self, other):\n        return other is other\n"
        "return Total(x + 1)",
        "defines a __eq__ in Total that answers `other is other`",
    ),
    "mock.ANY": (
        "from unittest.mock import ANY\nreturn ANY",
        "uses unittest.mock (whose stand-ins take the place of the value a test checks",
    ),
    "mock.sentinel": (
        "from unittest import mock\nreturn mock.sentinel.total",
        "uses unittest.mock (whose stand-ins take the place of the value a test checks",
    ),
    "a MagicMock equal to everything": (
        "import unittest.mock\nm = unittest.mock.MagicMock()\nm.__eq__.return_value = True\n"
        "return m",
        "uses unittest.mock (",
    ),
    "an __eq__ answering not False": (
        "class Same:\n    def __eq__(self, other):\n        _ = other\n        return not False\n"
        "return Same()",
        "defines a __eq__ in Same that answers `not False`",
    ),
}

POINT = """\
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        if not isinstance(other, Point):
            return NotImplemented
        return self.x == other.x
"""
POINT_FIXED = (
    "def __eq__(self, other):\n"
    "    if not isinstance(other, Point):\n"
    "        return NotImplemented\n"
    "    return (self.x, self.y) == (other.x, other.y)\n"
)


def candidate(n: int, body: str) -> str:
    inner = "\n".join("    " + line for line in body.splitlines())
    return f"def f{n}(x):\n{inner}\n"


def test_stand_ins_are_refused_and_the_real_fix_heals(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    bodies = [candidate(n, body) for n, (body, _) in enumerate(STAND_INS.values())]
    pytester.makepyfile(
        lib="\n\n".join(f"def f{n}(x):\n    return x + 1\n" for n in range(len(bodies)))
        + "\n\n"
        + POINT,
        test_values="import lib\n\n\n"
        + "\n\n".join(f"def test_{n}():\n    assert lib.f{n}(1) == 1\n" for n in range(len(bodies)))
        + "\n\ndef test_point():\n    assert lib.Point(1, 2) != lib.Point(1, 3)\n",
    )
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=pytester.path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=pytester.path, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=pytester.path, check=True)

    def respond(body: dict[str, Any]) -> Scripted:
        prompt = str(body["messages"][1]["content"])
        match = re.match(r"The test `test_values\.py::test_(\w+)` fails", prompt)
        assert match is not None, prompt[:200]
        if match.group(1) == "point":
            edit = {"path": "lib.py", "function": "Point.__eq__", "code": POINT_FIXED}
        else:
            n = int(match.group(1))
            edit = {"path": "lib.py", "function": f"f{n}", "code": bodies[n]}
        return tool_call("a fix", [edit])

    llm.responder = respond
    before = snapshot(pytester.path)

    result = pytester.runpytest(*heal_args(llm), "--heal-write", "--heal-attempts", "1")

    for n, (name, (_, reason)) in enumerate(STAND_INS.items()):
        lines = [
            x for x in result.stdout.lines if x.startswith(f"NOT HEALED test_values.py::test_{n}:")
        ]
        assert len(lines) == 1, (name, result.stdout.str()[-3000:])
        assert f"fix refused: the fix in lib.py::f{n} {reason}" in lines[0], (name, lines[0])
    result.stdout.fnmatch_lines(
        [
            "HEALED test_values.py::test_point",
            f"caretaker: 1 healed, {len(STAND_INS)} not healed*",
        ]
    )
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    after = snapshot(pytester.path)
    changed = {path for path in after.keys() | before.keys() if after.get(path) != before.get(path)}
    assert changed == {"lib.py"}
    written = (pytester.path / "lib.py").read_text()
    assert "(self.x, self.y) == (other.x, other.y)" in written
    assert "mock" not in written and "other is other" not in written
