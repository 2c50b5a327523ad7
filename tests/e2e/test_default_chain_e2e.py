"""The default chain is cheapest first (#31): a remembered fix, the built-in repairer with a short
budget, then the model found here (a provider key, a local Ollama, a server at --heal-api-base)
for what the built-in repairer could not heal. A model named alone is asked alone."""

from __future__ import annotations

import socket

import pytest
from helpers import TEST_ENV

from pytest_caretaker.testing import ScriptedServer, tool_call

CALC = """\
def mean(xs):
    return sum(xs) / (len(xs) + 1)


def greet(name):
    return "Hello, " + name + "?"
"""
TEST_CALC = """\
from calc import greet, mean


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_greet():
    assert greet("Ada") == "Hello, Ada!"
"""
GOOD_GREET = 'def greet(name):\n    return "Hello, " + name + "!"\n'


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (bound, not listening, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_provider_key_without_a_network_leaves_the_quickstart_to_the_builtin_repairer(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A key in the user's shell, and no way to the provider (a plane, a proxy, a dead server).
    monkeypatch.setenv("OPENAI_API_KEY", "sk-a-key-of-the-users-shell")
    base = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv("OPENAI_API_BASE", base)
    monkeypatch.setenv("OPENAI_BASE_URL", base)
    pytester.copy_example("quickstart")

    result = pytester.runpytest_subprocess("--heal", "-p", "no:cacheprovider", timeout=120)

    result.stdout.fnmatch_lines(
        [
            f"caretaker: heal (in memory) · models builtin → openai/gpt-4.1 "
            f"{TEST_ENV} · scope code",
            "HEALED test_textstats.py::test_moving_average",
            "  * candidates tried · no model, no tokens · * s · builtin",
            "caretaker: 1 healed, 0 not healed · no tokens spent · fixes in .caretaker/heal.patch",
        ]
    )
    out = result.stdout.str()
    assert "fix from" not in out  # the model was never needed
    assert "Connection" not in out


def test_a_model_found_heals_what_the_builtin_repairer_cannot(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.makepyfile(calc=CALC, test_calc=TEST_CALC)
    llm.script(
        tool_call(
            "The greeting ends with !",
            [{"path": "calc.py", "function": "greet", "code": GOOD_GREET}],
        )
    )

    # No model named: the server's own (openai/scripted) follows the built-in repairer.
    result = pytester.runpytest("--heal", "--heal-api-base", llm.base_url)

    result.stdout.fnmatch_lines(
        [
            f"caretaker: heal (in memory) · models builtin → openai/scripted "
            f"{TEST_ENV} · scope code",
            "HEALED test_calc.py::test_greet",
            "  fix from openai/scripted, after builtin: the built-in repairer tried all * "
            "candidate edits in * s; none made the test pass without breaking another",
            "  1 attempt · * tokens · * · openai/scripted",
            "HEALED test_calc.py::test_mean",
            "  * tried · no model, no tokens · * s · builtin",
        ]
    )
    out = result.stdout.str()
    assert "a model may find" not in out  # the advice is for a chain that ends with builtin
    (said,) = [line for line in out.splitlines() if line.startswith("  fix from")]
    assert said.endswith("without breaking another")  # whole, not cut
    assert len(llm.requests) == 1  # asked about greet only


def test_a_model_named_alone_is_the_only_one_asked(
    pytester: pytest.Pytester, llm: ScriptedServer
) -> None:
    pytester.copy_example("quickstart")
    llm.script(tool_call("Nothing to say.", []))

    result = pytester.runpytest(
        "--heal", "--heal-model", "openai/gpt-4o-mini", "--heal-api-base", llm.base_url
    )

    result.stdout.fnmatch_lines(
        [
            f"caretaker: heal (in memory) · model openai/gpt-4o-mini {TEST_ENV} · scope code",
            "NOT HEALED test_textstats.py::test_moving_average: *",
        ]
    )
    assert "builtin" not in result.stdout.str()
    assert llm.requests
