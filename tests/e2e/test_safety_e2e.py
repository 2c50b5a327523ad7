"""Safety end to end: every model and candidate fault is contained, budgets hold, secrets stay home,
and nothing escapes the project. pytester projects, litellm over HTTP to the scripted server."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from helpers import CALC, GOOD_MEAN, TEST_CALC, heal_args, snapshot

from pytest_caretaker.testing import Scripted, ScriptedServer, fault, text, tool_call


def fix(code: str, function: str = "mean", path: str = "calc.py", **options: object) -> Scripted:
    return tool_call("a fix", [{"path": path, "function": function, "code": code}], **options)


@pytest.fixture
def calc(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC)
    monkeypatch.setattr("pytest_caretaker.llm.client.BACKOFF", 0.01)  # retries without the wait
    return pytester


def echo(body: dict[str, Any]) -> Scripted:
    return text(str(body["messages"][-1]["content"]))


def lib_fix(code: str) -> Callable[[int], Scripted]:
    """A reply that replaces f<n> of lib.py with code (written for f0)."""
    return lambda n: fix(code.replace("f0", f"f{n}"), function=f"f{n}", path="lib.py")


Reply = Scripted | Callable[[int], Scripted] | Callable[[dict[str, Any]], Scripted]

#: Faults of the model and the network -> (replies in order, the NOT HEALED reason expected).
MODEL_FAULTS: dict[str, tuple[list[Reply] | Callable[[dict[str, Any]], Scripted], str]] = {
    "timeout": (
        [text("late", delay=3)],
        "model error: Timeout: the model did not answer within 1.5 s (--heal-model-timeout)",
    ),
    "rate limited": (
        [fault(429, headers={"Retry-After": "0"})] * 3,
        "model error: RateLimitError: *(3 tries)",
    ),
    "rate limited for an hour": (
        [fault(429, headers={"Retry-After": "3600"})],
        "model error: RateLimitError: *the provider asks to wait 3600 s, longer than caretaker "
        "waits (30 s)",
    ),
    "server error": ([fault(500)] * 3, "model error: InternalServerError: *(3 tries)"),
    "overloaded": ([fault(503)] * 3, "model error: ServiceUnavailableError: *(3 tries)"),
    "body not json": ([Scripted(body=b"<html>Bad gateway</html>")] * 3, "model error: *"),
    "body truncated": (
        [Scripted(body=b'{"id": "x", "object": "chat.completion", "choices": [{"mess')] * 3,
        "model error: *",
    ),
    "empty reply": ([text("")], "model error: the model returned an empty reply"),
    "reply cut off": (
        [text("```python\ndef f0(x):\n    return (", finish_reason="length")],
        "the reply was cut off at the model's output limit*",
    ),
    "reply echoes the prompt": (echo, "the reply repeats the prompt*"),
    "megabyte reply": (
        [text("x = 1\n" * 200_000)],
        "model error: the model's reply is 1,200,000 characters, more than caretaker reads*",
    ),
    "syntax error": (
        [lib_fix("def f0(x):\n    return (x +\n")],
        "model output did not parse: The code does not parse*",
    ),
    "function that does not exist": (
        [fix("def median(xs):\n    return 2\n", function="median", path="lib.py")],
        "model output did not parse: The reply defines median, which matches no function*",
    ),
}
#: Candidates that misbehave when verified -> (the candidate, the NOT HEALED reason expected).
CANDIDATE_FAULTS: dict[str, tuple[list[Reply], str]] = {
    "candidate loops": (
        [lib_fix("def f0(x):\n    while True:\n        pass\n")],
        # Each test has its own limit (ten times the run's slowest, 1 s at least): the loop is
        # stopped inside the test, which then still hangs; the whole run's 4 s is the last resort.
        # (On a busy machine: "…: it timed out on this machine, and again with 3 times its limit")
        "test_faults.py::test_{n} still hangs*",
    ),
    # The guard refuses os._exit and os.kill (guard/forgery.py); these crash past it, so the
    # verifier's own containment is what is tested.
    "candidate exits with 0": (
        [
            lib_fix(
                "def f0(x):\n    import os, sys\n"
                "    os.execv(sys.executable, [sys.executable, '-c', ''])\n"
            )
        ],
        "the test process exited before reporting (did the code exit the interpreter?)",
    ),
    "candidate kills itself": (
        [lib_fix("def f0(x):\n    import os\n    os.abort()\n")],
        "the test process was killed by signal 6",
    ),
    "candidate fills memory": (
        # bytes(n) is calloc'd: address space grows, the machine's memory does not.
        [
            lib_fix(
                "def f0(x):\n    hoard = []\n    while True:\n"
                "        hoard.append(bytes(1 << 28))\n"
            )
        ],
        "test_faults.py::test_{n} still fails",
    ),
}


def faulty_project(
    pytester: pytest.Pytester, faults: dict[str, Any], server: ScriptedServer
) -> None:
    """One failing test per fault (test_<n> calls lib.f<n>, off by one), and a responder that
    plays each fault's replies to the requests about its test."""
    count = len(faults)
    pytester.makepyfile(
        lib="\n\n".join(f"def f{n}(x):\n    return x + 1\n" for n in range(count)),
        test_faults="import lib\n\n\n"
        + "\n\n".join(f"def test_{n}():\n    assert lib.f{n}(1) == 1\n" for n in range(count))
        + "\n\ndef test_passes():\n    assert lib.f0(0) == 1\n",
    )
    queues = {n: replies for n, (replies, _) in enumerate(faults.values())}
    asked: dict[int, int] = {}

    def respond(body: dict[str, Any]) -> Scripted:
        prompt = str(body["messages"][1]["content"])
        match = re.match(r"The test `test_faults\.py::test_(\d+)` fails", prompt)
        assert match is not None, prompt[:200]
        n = int(match.group(1))
        replies = queues[n]
        if not isinstance(replies, list):
            return replies(body)
        index = asked[n] = asked.get(n, -1) + 1
        reply = replies[min(index, len(replies) - 1)]
        return reply(n) if callable(reply) else reply

    server.responder = respond


@pytest.mark.parametrize(
    ("faults", "options"),
    [
        (MODEL_FAULTS, ["--heal-model-timeout", "1.5"]),
        (CANDIDATE_FAULTS, ["--heal-timeout", "4"]),
    ],
    ids=["model faults", "candidate faults"],
)
def test_every_fault_is_contained(
    pytester: pytest.Pytester,
    llm: ScriptedServer,
    monkeypatch: pytest.MonkeyPatch,
    faults: dict[str, Any],
    options: list[str],
) -> None:
    monkeypatch.setattr("pytest_caretaker.llm.client.BACKOFF", 0.01)  # retries without the wait
    faulty_project(pytester, faults, llm)
    before = snapshot(pytester.path)

    result = pytester.runpytest(*heal_args(llm), "--heal-attempts", "1", *options)

    assert result.ret == 1  # the run's own outcome, whatever the model did
    result.assert_outcomes(passed=1, failed=len(faults))
    for n, (name, (_, reason)) in enumerate(faults.items()):
        expected = f"NOT HEALED test_faults.py::test_{n}: {reason.replace('{n}', str(n))}"
        lines = [
            x for x in result.stdout.lines if x.startswith(f"NOT HEALED test_faults.py::test_{n}:")
        ]
        assert len(lines) == 1 and len(lines[0]) < 400, (name, lines)
        assert fnmatch.fnmatch(lines[0], expected), (name, lines[0], expected)
    result.stdout.fnmatch_lines([f"caretaker: 0 healed, {len(faults)} not healed *"])
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*caretaker: healing stopped by an internal error*")
    assert snapshot(pytester.path) == before


def test_fault_in_write_mode_writes_and_commits_nothing(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=calc.path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=calc.path, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=calc.path, check=True)
    llm.script(*[fault(500)] * 3)
    before = snapshot(calc.path)

    result = calc.runpytest(*heal_args(llm), "--heal-write")

    assert result.ret == 1
    result.stdout.fnmatch_lines(["NOT HEALED test_calc.py::test_mean: model error: *"])
    assert snapshot(calc.path) == before
    log = subprocess.run(
        ["git", "log", "--oneline"], cwd=calc.path, capture_output=True, text=True, check=True
    )
    assert len(log.stdout.splitlines()) == 1


@pytest.mark.parametrize("status", [429, 503])
def test_a_retried_fault_then_a_fix_heals(
    calc: pytest.Pytester, llm: ScriptedServer, status: int
) -> None:
    llm.script(fault(status, headers={"Retry-After": "0"}), fix(GOOD_MEAN))

    result = calc.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean"])
    assert len(llm.requests) == 2


def test_a_client_error_is_not_retried(calc: pytest.Pytester, llm: ScriptedServer) -> None:
    llm.script(fault(401), fix(GOOD_MEAN))

    result = calc.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["NOT HEALED test_calc.py::test_mean: model error: *"])
    assert len(llm.requests) == 1


# -- budgets -------------------------------------------------------------------------------------

#: Two failures with two root causes (clustering would heal one bug's failures together).
TWO_BUGS = CALC + "\n\ndef double(x):\n    return x * 3\n"
TWO_FAILURES = """\
from calc import double, mean


def test_double():
    assert double(2) == 4


def test_mean():
    assert mean([1, 2, 3]) == 2
"""
GOOD_DOUBLE = "def double(x):\n    return x * 2\n"


def test_budget_spent_leaves_the_rest_not_attempted(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    calc.makepyfile(calc=TWO_BUGS, test_calc=TWO_FAILURES)
    # gpt-4o-mini costs $0.15 per million prompt tokens: this one reply costs $0.15.
    llm.script(fix(GOOD_DOUBLE, function="double", prompt_tokens=1_000_000, completion_tokens=0))

    # One repair at a time: with several, requests already in flight still complete.
    result = calc.runpytest(*heal_args(llm), "--heal-budget", "0.10", "--heal-concurrency", "1")

    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "HEALED test_calc.py::test_double",
            "NOT HEALED test_calc.py::test_mean: not attempted: the --heal-budget of "
            "$0.10 is spent ($0.1500 used); raise it to heal the rest",
        ]
    )
    assert len(llm.requests) == 1


# -- secrets -------------------------------------------------------------------------------------

ENV_SECRET = "correct-horse-battery-staple"  # no known shape: only the environment gives it away
LOCAL_SECRET = "tok_live_4f9a8b7c6d5e"
OUTPUT_SECRET = "sk-live1234567890abcdefghij"


def test_planted_secrets_never_reach_the_model(
    pytester: pytest.Pytester, llm: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STRIPE_SECRET_KEY", ENV_SECRET)
    pytester.makepyfile(
        billing="""\
            def charge(amount, token):
                return {"amount": amount * 100, "token": token}
        """,
        test_billing=f"""\
            import os
            from billing import charge


            def test_charge():
                api_token = "{LOCAL_SECRET}"
                print("calling with {OUTPUT_SECRET} as", os.environ["STRIPE_SECRET_KEY"])
                receipt = charge(5, api_token)
                assert receipt == {{"amount": 5, "token": api_token}}
        """,
    )
    wrong = 'def charge(amount, token):\n    return {"amount": amount * 10, "token": token}\n'
    right = 'def charge(amount, token):\n    return {"amount": amount, "token": token}\n'
    llm.script(
        fix(wrong, function="charge", path="billing.py"),
        fix(right, function="charge", path="billing.py"),
    )

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_billing.py::test_charge"])
    assert len(llm.requests) == 2  # the second carries the verification output of the first
    sent = json.dumps(llm.requests)
    assert "[redacted #" in sent
    for secret in (ENV_SECRET, LOCAL_SECRET, OUTPUT_SECRET):
        assert secret not in sent
    transcripts = "".join(
        path.read_text() for path in (pytester.path / ".caretaker" / "transcripts").rglob("*.md")
    )
    for secret in (ENV_SECRET, LOCAL_SECRET, OUTPUT_SECRET):
        assert secret not in transcripts


def test_a_redacted_literal_kept_by_the_model_is_restored_in_the_fix(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    key = "sk-abcdefghijklmnopqrstuvwx1234"
    pytester.makepyfile(
        client=f"""\
            def header():
                key = "{key}"
                return "Bearer:" + key
        """,
        test_client=f"""\
            from client import header


            def test_header():
                assert header().startswith("Bearer sk-")
                assert header().endswith("{key[-6:]}")
        """,
    )

    def respond(body: dict[str, object]) -> Scripted:
        prompt = json.dumps(body)
        marker = re.search(r"\[redacted #\d+: [^\]]*\]", prompt)
        assert marker is not None
        code = f'def header():\n    key = "{marker.group(0)}"\n    return "Bearer " + key\n'
        return fix(code, function="header", path="client.py")

    llm.responder = respond

    result = pytester.runpytest(*heal_args(llm))

    result.stdout.fnmatch_lines(["HEALED test_client.py::test_header", f'*key = "{key}"'])
    assert key not in json.dumps(llm.requests)
    assert (
        '+    return "Bearer " + key' in (pytester.path / ".caretaker" / "heal.patch").read_text()
    )


# -- the fence -----------------------------------------------------------------------------------


def test_edits_that_escape_the_project_are_refused(
    calc: pytest.Pytester, llm: ScriptedServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    outside = elsewhere / "outside.py"
    outside.write_text("def mean(xs):\n    return 0\n")
    os.symlink(outside, calc.path / "linked.py")
    before_outside = outside.read_bytes()
    llm.script(
        fix(GOOD_MEAN, path="../outside.py"),
        fix(GOOD_MEAN, path=str(outside)),
        fix(GOOD_MEAN, path="linked.py"),
    )
    before = snapshot(calc.path)

    result = calc.runpytest(*heal_args(llm), "--heal-write")

    result.stdout.fnmatch_lines(
        ["NOT HEALED test_calc.py::test_mean: fix refused: linked.py leads outside the project*"]
    )
    feedback = [request["messages"][-1]["content"] for request in llm.requests[1:]]
    assert "../outside.py is outside the project" in feedback[0]
    assert f"{outside} is outside the project" in feedback[1]
    assert outside.read_bytes() == before_outside
    assert snapshot(calc.path) == before


def test_a_test_file_edit_under_scope_code_is_refused_even_for_conftest(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    calc.makeconftest("def helper():\n    return 1\n")
    llm.script(fix("def helper():\n    return 2\n", function="helper", path="conftest.py"))

    result = calc.runpytest(*heal_args(llm), "--heal-attempts", "1")

    result.stdout.fnmatch_lines(
        ["NOT HEALED test_calc.py::test_mean: fix refused: the fix edits test code (conftest.py)*"]
    )


def test_ctrl_c_midway_reports_done_and_not_attempted(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    calc.makepyfile(calc=TWO_BUGS, test_calc=TWO_FAILURES)
    calls: list[int] = []

    def respond(body: dict[str, object]) -> Scripted:
        calls.append(1)
        if len(calls) == 2:
            import signal

            os.kill(os.getpid(), signal.SIGINT)  # while the second failure waits for its reply
        return fix(GOOD_DOUBLE, function="double")

    llm.responder = respond
    before = snapshot(calc.path)

    result = calc.runpytest(*heal_args(llm), "--heal-concurrency", "1")

    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "HEALED test_calc.py::test_double",
            "NOT HEALED test_calc.py::test_mean: not attempted: healing was interrupted*",
            "caretaker: healing interrupted; 1 of 2 failures were done",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    assert snapshot(calc.path) == before
