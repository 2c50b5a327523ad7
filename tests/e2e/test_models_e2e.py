"""Models and prompts end to end: --heal-models, the automatic choice and its header, the fallback
chain, the prompt strategies and --heal-prompt, the conversation across attempts and the token
totals, all through pytester runs against the scripted server (OpenAI-compatible and Ollama)."""

from __future__ import annotations

import ast
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    CALC,
    GOOD_MEAN,
    HERE,
    TEST_CALC,
    TEST_ENV,
    TEXT_MODEL,
    TOOLS_MODEL,
    heal_args,
    models_table,
)

from pytest_caretaker.testing import Scripted, ScriptedServer, fault, text, tool_call

LOCAL_MODELS = ("llama3.2:3b", "qwen2.5-coder:7b")
PASSING = "def test_ok():\n    assert 1 + 1 == 2\n"
#: Records every connection and name lookup the run makes, one per line, in connects.txt.
NETWORK_AUDIT = """
import os
import socket

_LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "connects.txt")
_connect = socket.socket.connect
_getaddrinfo = socket.getaddrinfo


def _record(what):
    with open(_LOG, "a") as log:
        log.write(repr(what) + "\\n")


def _recording_connect(self, address):
    _record(("connect", address))
    return _connect(self, address)


def _recording_getaddrinfo(host, *args, **kwargs):
    _record(("lookup", host))
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _recording_connect
socket.getaddrinfo = _recording_getaddrinfo
"""


@pytest.fixture
def ollama() -> Any:
    """A local 'Ollama' (the scripted server) serving a general model and a code model."""
    server = ScriptedServer(models=LOCAL_MODELS, tool_models=("qwen2.5-coder:7b",)).start()
    yield server
    server.stop()


def header(output: str) -> str:
    """The header's line under -v, which says how the chain was chosen (one short line without)."""
    found = re.search(r"^caretaker: heal .*$", output, re.M)
    assert found is not None, output
    return found.group(0)


# -- done when 1: --heal-models -----------------------------------------------------------------


def test_heal_models_with_no_key_and_no_server_lists_only_builtin(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_ok=PASSING)

    result = pytester.runpytest("--heal-models")

    assert result.ret == 0
    out = result.stdout.str()
    assert "collected" not in out  # it lists and exits: no test runs
    assert models_table(out) == {
        "builtin": ["no", "?", "free", "free", "the model-free repairer (chosen)"]
    }
    assert (
        "Providers with a key in the environment (with no model configured, the first):\n  none"
        in out
    )
    assert "Ollama at http://127.0.0.1:9: not answering" in out
    assert (
        "no model configured; caretaker would use builtin (no model configured; "
        "no provider key, no local Ollama; --heal-model or CARETAKER_MODEL picks one)" in out
    )


def test_heal_models_with_two_provider_keys_names_each_model_and_never_calls_them(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-openai-key-for-a-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-a-test")
    pytester.makepyfile(test_ok=PASSING)
    pytester.makeconftest(NETWORK_AUDIT)

    result = pytester.runpytest_subprocess("--heal-models", timeout=60)

    assert result.ret == 0, result.stderr.str()
    out = result.stdout.str()
    assert re.search(r"^  anthropic +ANTHROPIC_API_KEY +→ anthropic/claude-sonnet-4-5$", out, re.M)
    assert re.search(r"^  openai +OPENAI_API_KEY +→ openai/gpt-4.1$", out, re.M)
    rows = models_table(out)
    # Capabilities and prices come from litellm's model map.
    assert rows["anthropic/claude-sonnet-4-5"] == [
        *("yes", "200,000", "3.00", "15.00"),
        "ANTHROPIC_API_KEY (chosen)",
    ]
    assert rows["openai/gpt-4.1"] == ["yes", "1,047,576", "2.00", "8.00", "OPENAI_API_KEY"]
    assert "builtin" in rows
    assert "would use builtin → anthropic/claude-sonnet-4-5 (ANTHROPIC_API_KEY is set)" in out
    # The keys are only read: no name was looked up and nothing but the local Ollama probe
    # (at the OLLAMA_HOST the test environment gives, where nothing listens) was connected to.
    audit = Path(pytester.path, "connects.txt")
    made = [ast.literal_eval(line) for line in audit.read_text().splitlines()]
    assert made == [("lookup", "127.0.0.1"), ("connect", ("127.0.0.1", 9))]
    assert "fake" not in out  # nor are the keys printed


def test_heal_models_lists_a_local_ollamas_models_with_their_capabilities(
    pytester: pytest.Pytester, ollama: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama.host)
    pytester.makepyfile(test_ok=PASSING)

    result = pytester.runpytest("--heal-models")

    assert result.ret == 0
    out = result.stdout.str()
    assert f"Ollama at {ollama.root_url}: 2 models" in out
    rows = models_table(out)
    where = f"Ollama at {ollama.root_url}"
    # Ollama's /api/show says which model calls tools and how long its context is.
    assert rows["ollama_chat/qwen2.5-coder:7b"] == [
        *("yes", "32,768", "local", "local"),
        f"{where} (chosen)",
    ]
    assert rows["ollama_chat/llama3.2:3b"] == ["no", "32,768", "local", "local", where]
    assert (
        "caretaker would use builtin → ollama_chat/qwen2.5-coder:7b "
        f"(a code model served by Ollama at {ollama.root_url})" in out
    )
    assert ollama.requests == []  # listing asks no model anything


@pytest.mark.usefixtures("_litellm_loaded")  # imported in-process: load it once, outside
def test_heal_models_with_an_api_base_lists_what_the_server_serves(
    pytester: pytest.Pytester, ollama: ScriptedServer
) -> None:
    pytester.makepyfile(test_ok=PASSING)

    result = pytester.runpytest(
        "--heal-models", "--heal-model", TOOLS_MODEL, "--heal-api-base", ollama.base_url
    )

    assert result.ret == 0
    out = result.stdout.str()
    assert f"configured: {TOOLS_MODEL} (--heal-model)" in out
    assert f"OpenAI-compatible server at {ollama.base_url}: 2 models" in out
    rows = models_table(out)
    assert rows[TOOLS_MODEL][:2] == ["yes", "128,000"]  # litellm knows it; served locally: no price
    assert rows[TOOLS_MODEL][2:4] == ["local", "local"]
    # Unknown to litellm, but the local server is an Ollama: its /api/show knows.
    assert rows["openai/qwen2.5-coder:7b"][:2] == ["yes", "32,768"]
    assert rows["openai/llama3.2:3b"][:2] == ["no", "32,768"]
    assert rows["ollama_chat/qwen2.5-coder:7b"][0] == "yes"


def test_heal_models_reports_a_bad_option_as_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--heal-models", "--heal-api-base", "ftp://nowhere")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--heal-api-base: expected an http:// or https:// URL" in result.stderr.str()


# -- done when 2: the automatic choice and the header -------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (
            {},
            "model builtin (no model configured; no provider key, no local Ollama; "
            "--heal-model or CARETAKER_MODEL picks one)",
        ),
        (
            {"OPENAI_API_KEY": "sk-fake", "ANTHROPIC_API_KEY": "sk-ant-fake"},
            f"models builtin → anthropic/claude-sonnet-4-5 ({HERE}; ANTHROPIC_API_KEY is set)",
        ),
        (
            {"OPENAI_API_KEY": "sk-fake", "MISTRAL_API_KEY": "fake"},
            f"models builtin → openai/gpt-4.1 ({HERE}; OPENAI_API_KEY is set)",
        ),
        (
            {"GOOGLE_API_KEY": "fake"},
            f"models builtin → gemini/gemini-2.5-pro ({HERE}; GOOGLE_API_KEY is set)",
        ),
        (
            {"CARETAKER_MODEL": "openai/gpt-4o-mini", "ANTHROPIC_API_KEY": "sk-ant-fake"},
            f"model openai/gpt-4o-mini ({HERE}; CARETAKER_MODEL)",
        ),
    ],
    ids=["nothing", "two-keys", "order", "google-key", "caretaker-model"],
)
def test_the_header_names_the_chosen_model_and_why(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    expected: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile(test_ok=PASSING)

    result = pytester.runpytest("--heal", "-v")

    assert result.ret == 0
    assert header(result.stdout.str()) == f"caretaker: heal (in memory) · {expected} · scope code"


def test_a_provider_key_beats_a_local_ollama(
    pytester: pytest.Pytester, ollama: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama.host)
    monkeypatch.setenv("DEEPSEEK_API_KEY", "fake")
    pytester.makepyfile(test_ok=PASSING)

    result = pytester.runpytest("--heal", "-v")

    assert f"models builtin → deepseek/deepseek-chat ({HERE}; DEEPSEEK_API_KEY is set)" in header(
        result.stdout.str()
    )
    assert ollama.paths == []  # with a key, no local server is even asked


def test_a_local_ollama_serving_no_code_model_leaves_builtin_and_says_how_to_use_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedServer(models=("llama3.2:3b",)).start() as server:
        monkeypatch.setenv("OLLAMA_HOST", server.host)
        pytester.makepyfile(test_ok=PASSING)

        result = pytester.runpytest("--heal", "-v")

    assert header(result.stdout.str()) == (
        f"caretaker: heal (in memory) · model builtin (Ollama at {server.root_url} serves no "
        "code model; --heal-model ollama_chat/llama3.2:3b would use llama3.2:3b) · scope code"
    )


@pytest.mark.usefixtures("_litellm_loaded")
def test_an_automatically_chosen_local_ollama_heals_through_its_own_api(
    pytester: pytest.Pytester, ollama: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama.host)
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC)
    ollama.script(
        tool_call(
            "mean divides by one too many.",
            [{"path": "calc.py", "function": "mean", "code": GOOD_MEAN}],
            prompt_tokens=321,
            completion_tokens=54,
        )
    )

    # The built-in repairer, first in the chain, would heal this off-by-one: no time for it.
    result = pytester.runpytest("--heal", "--heal-builtin-budget", "0.001", "-v")

    out = result.stdout.str()
    assert header(out) == (
        "caretaker: heal (in memory) · models builtin → ollama_chat/qwen2.5-coder:7b "
        f"({HERE}; a code model served by Ollama at {ollama.root_url}) · scope code"
    )
    result.stdout.fnmatch_lines(
        [
            "HEALED test_calc.py::test_mean",
            "  fix from ollama_chat/qwen2.5-coder:7b, after builtin: *budget of 0.001 s ran out*",
            "  1 attempt · 375 tokens · local · * s · ollama_chat/qwen2.5-coder:7b",
        ]
    )
    assert "/api/chat" in ollama.paths  # Ollama's own chat API, not the OpenAI one
    (request,) = ollama.requests
    assert request["model"] == "qwen2.5-coder:7b"
    assert request["tools"][0]["function"]["name"] == "propose_fix"  # /api/show: it has tools


# -- done when 3: the fallback chain ------------------------------------------------------------


def chain(server: ScriptedServer) -> list[str]:
    return [*heal_args(server), "--heal-model", TEXT_MODEL]


@pytest.fixture
def calc(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC)
    return pytester


#: The first model's answer when the prompt does not fit its context window.
OVERFLOW = json.dumps(
    {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, your "
            "messages resulted in 9000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
).encode()
#: The fallback cases of the shared chain run: what the first model answers (then 500s), and what
#: the second answers. Each case's project is calc_<n>.py and test_calc_<n>.py (n: its position).
FALLBACKS: dict[str, tuple[list[Scripted], list[Scripted]]] = {
    "500s": ([], [text(f"Divide by the count.\n```python\n{GOOD_MEAN}```")]),
    "never-parse": (
        [text("I think the problem might be somewhere in the arithmetic.")] * 3,
        [text(f"```python\n{GOOD_MEAN}```")],
    ),
    "overflow": ([fault(400, OVERFLOW)], [text(f"```python\n{GOOD_MEAN}```")]),
}


@dataclass
class ChainRun:
    lines: list[str]
    requests: list[dict[str, Any]]

    def healed(self, case: str) -> list[str]:
        """The case's HEALED line and the indented lines under it."""
        heading = f"HEALED test_calc_{list(FALLBACKS).index(case)}.py::test_mean"
        if heading not in self.lines:
            return []
        start = end = self.lines.index(heading)
        while end + 1 < len(self.lines) and self.lines[end + 1].startswith("  "):
            end += 1
        return self.lines[start : end + 1]

    def asked(self, case: str) -> list[dict[str, Any]]:
        """The requests about the case's test, in the order they came."""
        test = f"The test `test_calc_{list(FALLBACKS).index(case)}.py::test_mean` fails"
        return [r for r in self.requests if str(r["messages"][1]["content"]).startswith(test)]


@pytest.fixture(scope="module")
def _chain_run() -> list[ChainRun]:
    return []


@pytest.fixture
def chain_run(
    pytester: pytest.Pytester, llm: ScriptedServer, _chain_run: list[ChainRun]
) -> ChainRun:
    """One heal run through the chain for the three fallback cases (a run each cost ~2 s of CPU,
    most of it the same start, verification server and patch check): each case's project under
    module names of its own, and each model answers a request with the case's script for it (the
    first model's, then 500s; the second's). Made by the first test that needs it, in its
    pytester (its patch is judged at that test's end); each case is asserted on its own lines
    and requests."""
    if _chain_run:
        return _chain_run[0]
    queues: dict[tuple[str, str], list[Scripted]] = {}
    for number, (first, second) in enumerate(FALLBACKS.values()):
        test = TEST_CALC.replace("from calc import", f"from calc_{number} import")
        pytester.makepyfile(**{f"calc_{number}": CALC, f"test_calc_{number}": test})
        nodeid = f"test_calc_{number}.py::test_mean"
        queues[(nodeid, TOOLS_MODEL.split("/")[1])] = list(first)
        queues[(nodeid, TEXT_MODEL.split("/")[1])] = list(second)
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Scripted:
        found = re.match(r"The test `([^`]+)` fails", str(body["messages"][1]["content"]))
        assert found is not None
        with lock:
            queue = queues[(found.group(1), str(body["model"]))]
            return queue.pop(0) if queue else fault(500, headers={"Retry-After": "0"})

    llm.responder = respond
    result = pytester.runpytest(*chain(llm))
    _chain_run.append(ChainRun(result.stdout.lines, list(llm.requests)))
    return _chain_run[0]


def test_a_chain_falls_back_to_the_second_model_when_the_first_returns_500s(
    chain_run: ChainRun,
) -> None:
    pytest.LineMatcher(chain_run.lines).fnmatch_lines(
        [
            f"caretaker: heal (in memory) · models {TOOLS_MODEL} → {TEXT_MODEL} {TEST_ENV} "
            "· scope code"
        ]
    )
    pytest.LineMatcher(chain_run.healed("500s")).fnmatch_lines(
        [
            "HEALED test_calc_0.py::test_mean",
            f"  fix from {TEXT_MODEL}, after {TOOLS_MODEL}: model error: *500* (3 tries)",
            f"  1 attempt · 150 tokens · * · {TEXT_MODEL}",
        ]
    )
    asked = [r["model"] for r in chain_run.asked("500s")]
    assert asked == ["gpt-4o-mini"] * 3 + ["caretaker-scripted-text"]


def test_a_chain_falls_back_when_the_first_models_replies_never_parse(
    chain_run: ChainRun,
) -> None:
    pytest.LineMatcher(chain_run.healed("never-parse")).fnmatch_lines(
        [
            "HEALED test_calc_1.py::test_mean",
            f"  fix from {TEXT_MODEL}, after {TOOLS_MODEL}: model output did not parse*",
            # Both models' tokens count: 3 replies of the first, 1 of the second.
            f"  1 attempt · 600 tokens · * · {TEXT_MODEL}",
        ]
    )
    assert len(chain_run.asked("never-parse")) == 4


def test_a_chain_falls_back_when_the_prompt_overflows_the_first_models_window(
    chain_run: ChainRun,
) -> None:
    pytest.LineMatcher(chain_run.healed("overflow")).fnmatch_lines(
        [
            "HEALED test_calc_2.py::test_mean",
            f"  fix from {TEXT_MODEL}, after {TOOLS_MODEL}: model error: the prompt does not "
            "fit the model's context window*",
        ]
    )


# -- done when 4: one template per strategy, and --heal-prompt ----------------------------------


def first_request(calc: pytest.Pytester, llm: ScriptedServer, model: str, *more: str) -> Any:
    """The first request of a run that heals test_mean at once."""
    before = len(llm.requests)
    llm.script(text(f"```python\n{GOOD_MEAN}```"))
    # No cache of fixes: a test that asks twice must reach the model twice.
    result = calc.runpytest(*heal_args(llm, model, *more), "-p", "no:cacheprovider")
    assert "HEALED test_calc.py::test_mean" in result.stdout.str()
    return llm.requests[before]


def test_a_model_with_tool_calling_gets_the_tool_template(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    request = first_request(calc, llm, TOOLS_MODEL)

    system = request["messages"][0]["content"]
    assert request["tools"][0]["function"]["name"] == "propose_fix"
    assert "Reply by calling the tool `propose_fix` once" in system
    assert "# file:" not in system
    assert "Rules that always hold:" in system  # the shared rules, from rules.j2


def test_a_model_without_tool_calling_gets_the_text_template(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    request = first_request(calc, llm, TEXT_MODEL)

    system = request["messages"][0]["content"]
    assert "tools" not in request
    assert "propose_fix" not in system
    assert "# file: path/to/module.py" in system
    assert "Rules that always hold:" in system


@pytest.mark.parametrize("model", [TOOLS_MODEL, TEXT_MODEL])
def test_a_user_template_folder_overrides_both_strategies(
    calc: pytest.Pytester, llm: ScriptedServer, model: str
) -> None:
    folder = calc.mkdir("prompts")
    (folder / "system.j2").write_text(
        "House rules for {{ scope }} scope. Reply "
        "{% if tools %}with {{ tool_name }}{% else %}in fenced blocks{% endif %}.\n"
    )
    (folder / "user.j2").write_text(
        "The test `{{ test_id }}` fails: {{ error }}\n"
        "{% for f in functions %}{{ f.ref }}\n```python\n{{ f.code }}```\n{% endfor %}"
    )

    request = first_request(calc, llm, model, "--heal-prompt", "prompts")

    system, user = (m["content"] for m in request["messages"][:2])
    how = "with propose_fix" if model == TOOLS_MODEL else "in fenced blocks"
    assert system == f"House rules for code scope. Reply {how}.\n"
    assert user.startswith("The test `test_calc.py::test_mean` fails: AssertionError")
    assert "calc.py::mean\n```python\ndef mean(xs):" in user


def test_a_user_template_for_one_strategy_leaves_the_other_alone(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    folder = calc.mkdir("prompts")
    (folder / "text").mkdir()
    (folder / "text" / "system.j2").write_text("Text models: {{ scope }}.\n")

    tools_request = first_request(calc, llm, TOOLS_MODEL, "--heal-prompt", "prompts")
    text_request = first_request(calc, llm, TEXT_MODEL, "--heal-prompt", "prompts")

    assert "Reply by calling the tool" in tools_request["messages"][0]["content"]
    assert text_request["messages"][0]["content"] == "Text models: code.\n"


def test_a_missing_template_variable_is_a_clear_usage_error(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    folder = calc.mkdir("prompts")
    (folder / "user.j2").write_text("The test {{ test_id }} fails in {{ test_file }}.\n")

    result = calc.runpytest(*heal_args(llm), "--heal-prompt", "prompts")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [
        f"ERROR: caretaker: --heal-prompt: {folder}/user.j2 uses test_file, which caretaker does "
        "not provide; user.j2 gets case, error, failing, fence, functions, imports, locals, "
        "output, report, test_id, tool_name, tools"
    ]
    assert llm.requests == []  # nothing ran, nothing was asked


def test_an_ini_prompt_folder_is_relative_to_the_ini_file(
    calc: pytest.Pytester, llm: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    calc.makeini("[pytest]\nheal_prompt = prompts\n")
    folder = calc.mkdir("prompts")
    (folder / "system.j2").write_text("From the ini: {{ scope }}.\n")
    monkeypatch.chdir(calc.mkdir("elsewhere"))  # pytest started from another folder

    request = first_request(calc, llm, TEXT_MODEL, str(calc.path))

    assert request["messages"][0]["content"] == "From the ini: code.\n"


# -- done when 5: the conversation across attempts, and the token totals ------------------------


@pytest.mark.parametrize("model", [TOOLS_MODEL, TEXT_MODEL])
def test_attempt_two_carries_attempt_ones_candidate_and_why_it_was_rejected(
    calc: pytest.Pytester, llm: ScriptedServer, model: str
) -> None:
    wrong = "def mean(xs):\n    return total(xs) / (len(xs) + 2)\n"
    if model == TOOLS_MODEL:
        first = tool_call("Off by two?", [{"path": "calc.py", "function": "mean", "code": wrong}])
        second = tool_call("Count.", [{"path": "calc.py", "function": "mean", "code": GOOD_MEAN}])
    else:
        first = text(f"Off by two?\n```python\n{wrong}```")
        second = text(f"Count.\n```python\n{GOOD_MEAN}```")
    llm.script(first, second)

    result = calc.runpytest(*heal_args(llm, model))

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean", "  2 attempts · *"])
    retry = llm.requests[1]["messages"]
    assert retry[:2] == llm.requests[0]["messages"][:2]  # the same system prompt and failure
    candidate, rejection = retry[2], retry[3]
    assert candidate["role"] == "assistant"
    shown = candidate.get("content") or candidate["tool_calls"][0]["function"]["arguments"]
    assert "(len(xs) + 2)" in shown.replace("\\n", "\n")  # attempt 1's candidate
    assert rejection["role"] == ("tool" if model == TOOLS_MODEL else "user")
    feedback = rejection["content"]
    assert feedback.startswith(
        "That fix (attempt 1) was rejected: test_calc.py::test_mean still fails"
    )
    assert "assert 1.2 == 2" in feedback  # the verification output, as the rerun printed it


def test_the_summary_token_totals_are_the_sum_the_server_reported(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(
        calc=CALC + "\n\ndef half(x):\n    return x / 3\n\n\ndef double(x):\n    return x * 3\n",
        test_calc=TEST_CALC.replace("mean, total", "double, half, mean, total")
        + "\n\ndef test_half():\n    assert half(4) == 2\n"
        + "\n\ndef test_double():\n    assert double(2) == 4\n",
    )
    fixes = {
        "test_mean": ("mean", GOOD_MEAN),
        "test_half": ("half", "def half(x):\n    return x / 2\n"),
        "test_double": ("double", "def double(x):\n    return x * 2\n"),
    }
    served: list[tuple[str, int, int]] = []
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def respond(body: dict[str, Any]) -> Scripted:
        found = re.match(r"The test `test_calc.py::(\w+)` fails", body["messages"][1]["content"])
        assert found is not None
        test = found.group(1)
        with lock:
            asked[test] = asked.get(test, 0) + 1
            number = len(served) + 1
            prompt, completion = 100 + 37 * number, 11 * number
            served.append((test, prompt, completion))
        _, good = fixes[test]
        code = good if asked[test] > 1 else "def nope(:\n"  # each needs a second attempt
        return text(f"```python\n{code}```", prompt_tokens=prompt, completion_tokens=completion)

    llm.responder = respond

    result = pytester.runpytest(*heal_args(llm, TEXT_MODEL))

    out = result.stdout.str()
    assert out.count("HEALED test_calc.py::") == 3
    per_test: dict[str, int] = {}
    for test, prompt, completion in served:
        per_test[test] = per_test.get(test, 0) + prompt + completion
    for test, tokens in per_test.items():
        stats = re.search(
            rf"^HEALED test_calc.py::{test}\n(?:  .*\n)*?  2 attempts · ([\d,]+) tokens", out, re.M
        )
        assert stats is not None, out
        assert int(stats.group(1).replace(",", "")) == tokens
    total = sum(p + c for _, p, c in served)
    # A model served on this machine that litellm cannot price costs nothing: "local".
    assert f"caretaker: 3 healed, 0 not healed · {total:,} tokens · local · " in out
    assert len(served) == 6


# -- the context fitted to the model's window ---------------------------------------------------


def request_size(body: dict[str, Any]) -> int:
    """Characters of a request's messages (text and tool arguments), as caretaker counts them."""
    size = 0
    for message in body["messages"]:
        size += len(message.get("content") or "")
        for call in message.get("tool_calls") or ():
            size += len(json.dumps(call["function"]["arguments"]))
    return size


@pytest.mark.usefixtures("_litellm_loaded")
def test_the_conversation_is_fitted_to_a_small_context_window(pytester: pytest.Pytester) -> None:
    noisy = TEST_CALC.replace(
        "def test_mean():\n", "def test_mean():\n    print('progress ' * 2000)\n"
    )
    pytester.makepyfile(calc=CALC, test_calc=noisy)
    padding = "    # " + "a long comment in a rejected candidate " * 60 + "\n"
    wrong = f"def mean(xs):\n{padding}    return total(xs) / (len(xs) + 2)\n"
    replies = [text(f"```python\n{wrong}```")] * 2 + [text(f"```python\n{GOOD_MEAN}```")]
    window = 6_000
    room = (window - 4_096) * 3  # caretaker's estimate: 3 characters a token, 4,096 to reply
    with ScriptedServer(replies, models=("small-coder",), context_length=window).start() as small:
        result = pytester.runpytest(
            "--heal",
            *("--heal-model", "ollama_chat/small-coder"),
            *("--heal-api-base", small.root_url),
        )

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean", "  3 attempts · *"])
    first, second, third = small.requests
    # The captured output and report are cut to fit: the failure's own text is small.
    assert request_size(first) <= room
    assert first["messages"][1]["content"].count("progress") < 400
    # The third request has no room for both rejected candidates: the oldest is left out, the
    # latest stays with its reason, and the model is told.
    assert request_size(third) <= room
    assert "(1 earlier rejected attempt left out.)" in third["messages"][1]["content"]
    assert len(third["messages"]) == 4
    assert "That fix (attempt 2) was rejected" in third["messages"][3]["content"]
    assert len(second["messages"]) == 4  # one exchange fits beside the failure
    (transcript,) = Path(pytester.path, ".caretaker", "transcripts").glob("*/*.md")
    assert (
        "## Model ollama_chat/small-coder\n\nstrategy: text templates · context window: "
        f"6,000 tokens · at {small.root_url}" in transcript.read_text()
    )


@pytest.mark.usefixtures("_litellm_loaded")
def test_with_an_unknown_window_the_conversation_keeps_every_attempt(
    calc: pytest.Pytester, llm: ScriptedServer
) -> None:
    wrong = "def mean(xs):\n    return total(xs) / (len(xs) + 2)\n"
    llm.script(*[text(f"```python\n{wrong}```")] * 2, text(f"```python\n{GOOD_MEAN}```"))

    result = calc.runpytest(*heal_args(llm, TEXT_MODEL))

    result.stdout.fnmatch_lines(["HEALED test_calc.py::test_mean", "  3 attempts · *"])
    third = llm.requests[2]["messages"]
    assert len(third) == 6  # system, failure, and both earlier exchanges
    assert "left out" not in third[1]["content"]
