"""Failures are repaired concurrently: their model calls overlap, the summary stays in test-id
order, and Ctrl-C stops them all without a half-reported result."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from helpers import heal_args, snapshot

from pytest_caretaker.testing import Scripted, ScriptedServer, fault, tool_call

COUNT = 4


@pytest.fixture
def four(pytester: pytest.Pytester) -> pytest.Pytester:
    """Four failures with four root causes: f<n> is off by one."""
    pytester.makepyfile(
        lib="".join(f"def f{n}(x):\n    return x + 1\n\n\n" for n in range(COUNT)),
        test_lib="import lib\n\n\n"
        + "".join(f"def test_{n}():\n    assert lib.f{n}(1) == 1\n\n\n" for n in range(COUNT)),
    )
    return pytester


def number(body: dict[str, Any]) -> int:
    found = re.match(r"The test `test_lib\.py::test_(\d+)` fails", body["messages"][1]["content"])
    assert found is not None
    return int(found.group(1))


def fixed(n: int) -> Scripted:
    code = f"def f{n}(x):\n    return x\n"
    return tool_call("off by one", [{"path": "lib.py", "function": f"f{n}", "code": code}])


def test_model_calls_overlap_and_the_summary_keeps_its_order(
    four: pytest.Pytester, llm: ScriptedServer
) -> None:
    # Each reply waits until all four requests have arrived: only concurrent repairs get past.
    everyone = threading.Barrier(COUNT, timeout=20)

    def respond(body: dict[str, Any]) -> Scripted:
        try:
            everyone.wait()
        except threading.BrokenBarrierError:
            return fault(400)  # not all four were asked at once
        return fixed(number(body))

    llm.responder = respond
    before = snapshot(four.path)

    result = four.runpytest(*heal_args(llm), "--heal-concurrency", str(COUNT))

    assert result.ret == 1
    healed = [line for line in result.stdout.lines if line.startswith(("HEALED", "NOT HEALED"))]
    assert healed == [f"HEALED test_lib.py::test_{n}" for n in range(COUNT)]
    assert len(llm.requests) == COUNT
    assert snapshot(four.path) == before


def test_concurrency_one_asks_one_at_a_time(four: pytest.Pytester, llm: ScriptedServer) -> None:
    active = 0
    most = 0
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Scripted:
        nonlocal active, most
        with lock:
            active += 1
            most = max(most, active)
        reply = fixed(number(body))
        with lock:
            active -= 1
        return reply

    llm.responder = respond

    result = four.runpytest(*heal_args(llm), "--heal-concurrency", "1")

    result.stdout.fnmatch_lines([f"caretaker: {COUNT} healed, 0 not healed *"])
    assert most == 1


def test_ctrl_c_stops_concurrent_repairs_and_keeps_the_finished_ones(
    four: pytest.Pytester, llm: ScriptedServer
) -> None:
    import os
    import signal

    sent: list[int] = []

    def respond(body: dict[str, Any]) -> Scripted:
        n = number(body)
        if n == COUNT - 1 and not sent:
            # Once: a second Ctrl-C (a retried request) would land in this worker's next test.
            sent.append(n)
            os.kill(os.getpid(), signal.SIGINT)
        return fixed(n)

    llm.responder = respond
    before = snapshot(four.path)

    result = four.runpytest(*heal_args(llm), "--heal-concurrency", "2")

    assert result.ret == 1
    result.stdout.fnmatch_lines(["caretaker: healing interrupted; * of 4 failures were done"])
    lines = [x for x in result.stdout.lines if x.startswith(("HEALED", "NOT HEALED"))]
    assert len(lines) == COUNT  # every failure reported once: healed, or not attempted
    assert any("not attempted: healing was interrupted" in line for line in lines)
    result.stdout.no_fnmatch_line("*Traceback*")
    assert snapshot(four.path) == before


def test_from_the_first_failure_to_the_heals_end_every_ast_parse_takes_the_lock(
    pytester: pytest.Pytester,
) -> None:
    """CPython 3.11 shares the AST constructor's counter between threads: pytest formatting a
    failure beside caretaker's threads' parses ended a session in INTERNALERROR. The tests after
    the first failure see ast.parse locked; after the session it is the standard library's."""
    import ast

    from pytest_caretaker import syntax

    original = ast.parse
    pytester.makepyfile(
        lib="def f(x):\n    return x + 1\n",
        test_lib="import ast\nimport lib\n\n\n"
        "def test_before():\n    assert ast.parse.__module__ == 'ast'\n\n\n"
        "def test_fails():\n    assert lib.f(1) == 1\n\n\n"
        "def test_after():\n"
        "    print('PARSE', ast.parse.__module__)\n"
        "    assert False\n",
    )
    result = pytester.runpytest_inprocess("--heal", "-s")
    held = "pytest_caretaker.syntax" if syntax.SHARED_COUNTER else "ast"
    result.stdout.fnmatch_lines([f"*PARSE {held}*"])
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    assert result.parseoutcomes()["passed"] == 1
    assert ast.parse is original
