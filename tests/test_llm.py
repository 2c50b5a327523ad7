"""The one module that talks to litellm: lazy, quiet, and no side effects on the environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_caretaker import llm
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
        "from pytest_caretaker import llm\n"
        "module = llm._litellm()\n"
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
