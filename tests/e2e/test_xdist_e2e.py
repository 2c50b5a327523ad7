"""Healing under pytest-xdist: workers record, the controller heals once they are all done, and
the result is the one a run without xdist gives."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from helpers import heal_args, snapshot

from pytest_caretaker.testing import Scripted, ScriptedServer, tool_call

SECRET = "tok_live_5e6f7a8b9c0d"
FILES = {
    "shop/__init__.py": "",
    "shop/prices.py": (
        "def price(n):\n    return n * 3\n\n\ndef total(items):\n    return sum(items)\n"
    ),
    "shop/names.py": "def title(s):\n    return s.upper()\n",
    "tests/test_prices.py": (
        "from shop.prices import price, total\n\n\n"
        "def test_price():\n    assert price(2) == 4\n\n\n"
        "def test_price_of_three():\n    assert price(3) == 6\n\n\n"
        "def test_total():\n    assert total([1, 2]) == 3\n"
    ),
    "tests/test_names.py": (
        "from shop.names import title\n\n\n"
        "def test_title():\n"
        f"    api_token = {SECRET!r}\n"
        "    assert title('ada lovelace') == 'Ada Lovelace', api_token\n\n\n"
        "def test_empty():\n    assert title('') == ''\n"
    ),
}
FIXES = {
    "tests/test_prices.py::test_price": (
        "shop/prices.py",
        "price",
        "def price(n):\n    return n * 2\n",
    ),
    "tests/test_names.py::test_title": (
        "shop/names.py",
        "title",
        "def title(s):\n    return s.title()\n",
    ),
}


def respond(body: dict[str, Any]) -> Scripted:
    prompt = str(body["messages"][1]["content"])
    match = re.match(r"The test `([^`]+)` fails", prompt)
    assert match is not None
    path, function, code = FIXES[match.group(1)]
    return tool_call("fixed", [{"path": path, "function": function, "code": code}])


def summary(lines: list[str]) -> list[str]:
    """The caretaker section, with times (which vary from run to run) blanked."""
    start = next(i for i, line in enumerate(lines) if re.match(r"=+ caretaker =+", line))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("caretaker: "))
    return [re.sub(r"\d+\.\d s", "_ s", line) for line in lines[start : end + 1]]


@pytest.mark.parametrize("write", [False, True], ids=["heal", "heal-write"])
def test_n2_heals_what_n0_heals_with_the_same_summary(
    pytester: pytest.Pytester, llm: ScriptedServer, write: bool
) -> None:
    for name, content in FILES.items():
        pytester.path.joinpath(name).parent.mkdir(parents=True, exist_ok=True)
        pytester.path.joinpath(name).write_text(content)
    pytester.makeini("[pytest]\npythonpath = .\n")
    llm.responder = respond
    before = snapshot(pytester.path)
    # No cache: the second run must heal from scratch, not recall the first run's fixes.
    more = ("-p", "no:cacheprovider", *(("--heal-write", "--heal-no-commit") if write else ()))

    serial = pytester.runpytest("-n", "0", *heal_args(llm), *more)
    serial_requests = len(llm.requests)
    if write:  # put the files back for the second run
        for name, content in FILES.items():
            pytester.path.joinpath(name).write_text(content)
    llm.requests.clear()
    # In process, as the serial run: the controller asks the model from this process, where
    # litellm is imported already; a subprocess started a model process that imported it again
    # (~8 s of CPU). The workers are processes of their own either way; in process, a --heal run is
    # also held to its patch (tests/e2e/conftest.py), by a plain -n 2 run.
    distributed = pytester.runpytest("-n", "2", *heal_args(llm), *more)

    for result in (serial, distributed):
        assert result.ret == 1
        result.assert_outcomes(passed=2, failed=3)
    assert summary(distributed.stdout.lines) == summary(serial.stdout.lines)
    distributed.stdout.fnmatch_lines(
        [
            "HEALED tests/test_names.py::test_title",
            "HEALED tests/test_prices.py::test_price",
            "HEALED tests/test_prices.py::test_price_of_three",
            "  one root cause: the fix found for tests/test_prices.py::test_price heals *",
            "caretaker: 3 healed, 0 not healed *",
        ]
    )
    assert len(llm.requests) == serial_requests == 2  # one per root cause, in both runs
    assert SECRET not in json.dumps(llm.requests)  # a worker's secret local, redacted
    if write:
        assert "return n * 2" in pytester.path.joinpath("shop/prices.py").read_text()
    else:  # --heal: every file of the project as it was
        after = snapshot(pytester.path)
        assert {name: after[name] for name in before} == before
