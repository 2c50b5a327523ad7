"""The one module that talks to litellm: lazy, quiet, and no side effects on the environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pytest_caretaker.llm import client as llm
from pytest_caretaker.llm.tools import SHOW_TOOL, TOOL
from pytest_caretaker.testing import Scripted, ScriptedServer, fault, text, tool_call


def test_importing_litellm_does_not_load_the_projects_dotenv(tmp_path: Path) -> None:
    # The usual layout: a virtualenv inside the project, and a .env beside it. litellm's default
    # mode searches upward from its own files for a .env and loads it into os.environ.
    import litellm

    project = tmp_path / "project"
    site = project / ".venv" / "site"
    site.mkdir(parents=True)
    (site / "litellm").symlink_to(Path(litellm.__file__).parent)
    (project / ".env").write_text("CARETAKER_TEST_LEAK=from-dotenv\n")
    code = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(site)!r})\n"
        "from pytest_caretaker.llm import client as llm\n"
        "module = llm.litellm()\n"
        f"assert module.__file__.startswith({str(site)!r}), module.__file__\n"
        "print(os.environ.get('CARETAKER_TEST_LEAK'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_MODE"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=project
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "None"


@pytest.mark.usefixtures("_litellm_loaded")
def test_reply_carries_text_tool_calls_and_usage() -> None:
    arguments = {"explanation": "e", "edits": []}
    with ScriptedServer([tool_call("e", [], prompt_tokens=7, completion_tokens=3)]).start() as s:
        reply = llm.ask("openai/gpt-4o-mini", [{"role": "user", "content": "x"}], s.base_url, True)
    assert json.loads(reply.tool_arguments[0]) == arguments
    assert (reply.prompt_tokens, reply.completion_tokens) == (7, 3)
    assert reply.as_message()["tool_calls"][0]["id"] == reply.tool_call_ids[0]


@pytest.mark.usefixtures("_litellm_loaded")
@pytest.mark.parametrize(
    "scripted",
    [text(""), fault(400), fault(401), text("", body=b"not json at all")],
    ids=["empty reply", "bad request", "unauthorized", "not json"],
)
def test_faults_become_one_line_model_errors(scripted: Scripted) -> None:
    messages = [{"role": "user", "content": "x"}]
    with ScriptedServer([scripted]).start() as server, pytest.raises(llm.ModelError) as caught:
        llm.ask("openai/gpt-4o-mini", messages, server.base_url, True)
    message = str(caught.value)
    assert message and "\n" not in message and len(message) < 260


class _Fault(Exception):
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"status {status}")
        self.status_code = status
        self.litellm_response_headers = headers or {}


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "0.5"}, 0.5),
        ({}, None),
        ({"retry-after": "soon"}, None),
    ],
)
def test_retry_after_in_seconds(headers: dict[str, str], expected: float | None) -> None:
    assert llm.retry_after(_Fault(429, headers)) == expected


def test_retry_after_as_an_http_date() -> None:
    import email.utils
    import time

    when = email.utils.formatdate(time.time() + 60, usegmt=True)
    wait = llm.retry_after(_Fault(429, {"retry-after": when}))
    assert wait is not None and 55 <= wait <= 61


@pytest.mark.parametrize(
    ("status", "retried"), [(429, True), (500, True), (503, True), (400, False), (401, False)]
)
def test_only_rate_limits_and_server_errors_are_retried(status: int, retried: bool) -> None:
    assert llm._retryable(_Fault(status)) is retried


@pytest.mark.usefixtures("_litellm_loaded")
def test_retries_are_bounded_and_wait_what_the_provider_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float] = []
    monkeypatch.setattr(llm.time, "sleep", waits.append)
    replies = [fault(429, headers={"Retry-After": "2"}), fault(500), fault(500), text("late")]
    messages = [{"role": "user", "content": "x"}]
    with ScriptedServer(replies).start() as server, pytest.raises(llm.ModelError) as caught:
        llm.ask("openai/gpt-4o-mini", messages, server.base_url, True)
    assert len(server.requests) == 1 + llm.RETRIES
    assert waits == [2.0, llm.BACKOFF * 2]
    assert str(caught.value).endswith(f"({llm.RETRIES + 1} tries)")


@pytest.mark.usefixtures("_litellm_loaded")
def test_a_wait_beyond_the_bound_ends_the_call_at_once() -> None:
    messages = [{"role": "user", "content": "x"}]
    server = ScriptedServer([fault(429, headers={"Retry-After": "120"})]).start()
    with server, pytest.raises(llm.ModelError, match=r"asks to wait 120 s, longer than caretaker"):
        llm.ask("openai/gpt-4o-mini", messages, server.base_url, True)
    assert len(server.requests) == 1


# -- what is asked, and when to ask again (no model involved) ------------------------------------


@pytest.mark.parametrize(
    ("error", "elapsed", "message"),
    [
        pytest.param(
            _Fault(500), 9.6, "Timeout: the model did not answer within 10 s", id="the-clock"
        ),
        pytest.param(
            Exception("Connection timed out"), 0.1, "Timeout: the model did not", id="the-text"
        ),
        pytest.param(_Fault(401), 0.1, "_Fault: status 401", id="a-client-error"),
        pytest.param(
            type("ContextWindowExceededError", (Exception,), {})("too long: 9000 tokens"),
            0.1,
            "the prompt does not fit the model's context window "
            "(ContextWindowExceededError: too long: 9000 tokens)",
            id="the-context-window",
        ),
    ],
)
def test_what_is_not_tried_again_ends_with_its_reason(
    error: BaseException, elapsed: float, message: str
) -> None:
    with pytest.raises(llm.ModelError) as caught:
        llm._wait_to_retry(error, elapsed, 10.0, 0)
    assert str(caught.value).startswith(message)
    assert caught.value.__cause__ is None


def test_a_retry_waits_longer_each_time_unless_the_provider_says() -> None:
    assert [llm._wait_to_retry(_Fault(503), 0.1, 10.0, n) for n in range(llm.RETRIES)] == [
        llm.BACKOFF * 2**n for n in range(llm.RETRIES)
    ]
    assert llm._wait_to_retry(_Fault(429, {"retry-after": "3"}), 0.1, 10.0, 0) == 3.0
    with pytest.raises(llm.ModelError, match=r"\(3 tries\)$"):
        llm._wait_to_retry(_Fault(503), 0.1, 10.0, llm.RETRIES)


def test_the_request_to_a_local_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    messages = [{"role": "user", "content": "x"}]
    request = llm._request("openai/local", messages, "http://127.0.0.1:1/v1", True, 5.0)
    assert request["messages"] == messages and request["messages"] is not messages
    assert (request["timeout"], request["num_retries"], request["max_retries"]) == (5.0, 0, 0)
    assert request["api_base"] == "http://127.0.0.1:1/v1"
    assert request["api_key"] == "no-key-needed"
    assert request["tools"] == [TOOL, SHOW_TOOL]  # the fix, and a look at code before it
    assert request["_skip_mcp_handler"] is True


def test_the_request_to_a_provider_without_tools() -> None:
    request = llm._request("anthropic/claude-sonnet-4-5", [], None, False, 5.0)
    assert not {"api_base", "api_key", "tools", "_skip_mcp_handler"} & set(request)
    assert request["temperature"] == 0 and request["drop_params"] is True


@pytest.mark.usefixtures("_litellm_loaded")
def test_a_rate_limit_backs_off_every_thread_asking_that_provider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first request is told to wait 30 s; while its thread waits, another thread asks the
    # same provider: it waits too (what is left of the 30 s), then both get their replies.
    waiting, release = threading.Event(), threading.Event()
    first = threading.current_thread()
    waits: dict[str, list[float]] = {"first": [], "second": []}
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        name = "first" if threading.current_thread() is first else "second"
        if seconds:
            waits[name].append(seconds)
        if name == "first" and seconds:
            waiting.set()
            release.wait(10)

    replies = [fault(429, headers={"Retry-After": "30"}), text("one"), text("two")]
    messages = [{"role": "user", "content": "x"}]
    with ScriptedServer(replies).start() as server:
        other = ScriptedServer([text("elsewhere")]).start()
        replied: list[str] = []

        def second() -> None:
            waiting.wait(10)
            replied.append(llm.ask("openai/gpt-4o-mini", messages, server.base_url, True).text)
            # Another provider (another API base) is not held back by it.
            replied.append(llm.ask("openai/gpt-4o-mini", messages, other.base_url, True).text)
            release.set()

        monkeypatch.setattr(llm.time, "sleep", sleep)
        thread = threading.Thread(target=second)
        thread.start()
        replied.append(llm.ask("openai/gpt-4o-mini", messages, server.base_url, True).text)
        thread.join(10)
        monkeypatch.setattr(llm.time, "sleep", real_sleep)
        other.stop()

    assert waits["first"] == [30.0]
    assert len(waits["second"]) == 1 and 25.0 < waits["second"][0] <= 30.0  # one wait, shared
    assert sorted(replied) == ["elsewhere", "one", "two"]


def test_warming_up_leaves_nothing_for_the_first_request_to_import() -> None:
    # The first request after a bare import loads the provider's client (hundreds of modules);
    # after the warm-up, whose request is refused on this machine, it loads none. Both start
    # from one interpreter's bare import (warm-up without models: litellm and its preloads):
    # a forked copy makes the cold request, then the interpreter itself warms up and makes the
    # warm one. A second fresh interpreter would import litellm again, ~5 s of CPU, for the
    # same state the fork copies.
    code = (
        "import os, sys\n"
        "from pytest_caretaker.llm import client, warmup\n"
        "from pytest_caretaker.testing import ScriptedServer, text\n"
        "def first_request(models):\n"
        "    warmup.warm(models)\n"
        "    before = set(sys.modules)\n"
        "    messages = [{'role': 'user', 'content': 'x'}]\n"
        "    with ScriptedServer([text('hi')]).start() as server:\n"
        "        reply = client.ask('openai/m', messages, server.base_url, True)\n"
        "    print(reply.text, len(set(sys.modules) - before), len(server.requests), flush=True)\n"
        "warmup.warm(())\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    try:\n"
        "        first_request(())\n"
        "        os._exit(0)\n"
        "    finally:\n"
        "        os._exit(1)\n"
        "assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0\n"
        "first_request(sys.argv[1:])\n"
    )
    # The limit only ends a child that hangs: importing litellm took 100 s (7 s of CPU) at a
    # load of 14 on two cores, and 120 s cut a healthy child there.
    done = subprocess.run(
        [sys.executable, "-c", code, "builtin", "openai/m"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    cold, warm = (line.split() for line in done.stdout.splitlines()[-2:])
    assert cold[0] == warm[0] == "hi" and cold[2] == warm[2] == "1"
    assert int(cold[1]) > 50 and int(warm[1]) == 0
