"""The model process (llm/remote.py, llm/serve.py): litellm imported, warmed and asked in a
process of its own, answering exactly what this process would, and never a reason to lose a call.

Each scenario runs in a fresh interpreter, where litellm is not imported yet (in the test process
it is, and then caretaker asks in process); the three of SCENARIOS share one.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import uuid
from typing import Any

import pytest

from pytest_caretaker.llm import client as llm
from pytest_caretaker.llm import kept, remote
from pytest_caretaker.testing import ScriptedServer, fault

MODEL = "openai/gpt-4o-mini"
MESSAGES = [{"role": "user", "content": "x"}]


def fresh(code: str, *args: str) -> dict[str, Any]:
    """Run code in a new interpreter; the JSON it prints last."""
    prelude = (
        "import json, sys, threading, time\n"
        "from pytest_caretaker.llm import capabilities, client, remote, warmup\n"
        "from pytest_caretaker.testing import ScriptedServer, fault, text, tool_call\n"
        "MESSAGES = [{'role': 'user', 'content': 'x'}]\n"
    )
    # The limit only ends a child that hangs: importing litellm took 100 s (7 s of CPU) at a
    # load of 14 on two cores, and 120 s cut a healthy child there.
    done = subprocess.run(
        [sys.executable, "-c", prelude + code, *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


#: Three scenarios that each only need a warm model process, run one after the other in one
#: fresh interpreter (one_model_process): each had an interpreter and a model process of its own,
#: and the model process's import of litellm (~5 s of CPU) was most of what each test cost. The
#: forked copy comes last: its child stops its copy of the link, and then the process is asked
#: again. Each scenario starts with warmup.start, which finds the model process running.
SCENARIOS = {
    "answers": (
        "warmup.start([sys.argv[1]], 0)\n"
        "out = {}\n"
        "replies = [tool_call('e', [], prompt_tokens=7, completion_tokens=3), fault(401)]\n"
        "with ScriptedServer(replies).start() as server:\n"
        "    reply = client.ask(sys.argv[1], MESSAGES, server.base_url, True)\n"
        "    out['reply'] = [reply.tool_arguments, reply.prompt_tokens, reply.completion_tokens,\n"
        "                    reply.as_message()['tool_calls'][0]['id'] == reply.tool_call_ids[0]]\n"
        "    try:\n"
        "        client.ask(sys.argv[1], MESSAGES, server.base_url, True)\n"
        "    except client.ModelError as error:\n"
        "        out['error'] = str(error)\n"
        "out['tools'] = capabilities.info(sys.argv[1]).tools\n"
        "out['context'] = capabilities.info(sys.argv[1]).context\n"
        "out['warm'] = remote.running().ready.wait(60)\n"
        "out['litellm here'] = 'litellm' in sys.modules\n"
        "seen['answers'] = out\n"
    ),
    # The slow request is sent first and answered last: the answers are matched by id, and the
    # fast one does not wait behind it.
    "in flight": (
        "def respond(body):\n"
        "    word = body['messages'][-1]['content']\n"
        "    return text(word + ' answered', delay=1.5 if word == 'slow' else 0)\n"
        "warmup.start([sys.argv[1]], 0)\n"
        "remote.running().ready.wait(60)\n"
        "got = {}\n"
        "def ask(word):\n"
        "    reply = client.ask(sys.argv[1], [{'role': 'user', 'content': word}], base, False)\n"
        "    got[word] = [reply.text, time.monotonic()]\n"
        "with ScriptedServer(responder=respond).start() as server:\n"
        "    base = server.base_url\n"
        "    slow = threading.Thread(target=ask, args=('slow',))\n"
        "    slow.start()\n"
        "    time.sleep(0.3)\n"
        "    ask('fast')\n"
        "    slow.join(30)\n"
        "seen['in flight'] = {**got, 'litellm here': 'litellm' in sys.modules}\n"
    ),
    # A runtime heal lives in the user's process, which may fork (multiprocessing, servers): the
    # copy has no thread reading the model process's answers, and must not end it either.
    "forked": (
        "import os\n"
        "warmup.start([sys.argv[1]], 0)\n"
        "with ScriptedServer(responder=lambda body: text('hi')).start() as server:\n"
        "    reader, writer = os.pipe()\n"
        "    child = os.fork()\n"
        "    if child == 0:\n"
        "        reply = client.ask(sys.argv[1], MESSAGES, server.base_url, False)\n"
        "        remote.stop()\n"
        "        line = json.dumps([reply.text, 'litellm' in sys.modules])\n"
        "        os.write(writer, line.encode())\n"
        "        os._exit(0)\n"
        "    os.waitpid(child, 0)\n"
        "    forked = json.loads(os.read(reader, 1000))\n"
        "    reply = client.ask(sys.argv[1], MESSAGES, server.base_url, False)\n"
        "    seen['forked'] = {'forked': forked, 'here': [reply.text, 'litellm' in sys.modules],\n"
        "                      'running': remote.running() is not None}\n"
    ),
}


@pytest.fixture(scope="module")
def one_model_process() -> dict[str, Any]:
    """What each of SCENARIOS saw, by name, run in that order in one fresh interpreter."""
    code = "seen = {}\n" + "".join(SCENARIOS.values())
    return fresh(code + "remote.stop()\nprint(json.dumps(seen))\n", MODEL)


@pytest.mark.usefixtures("_litellm_loaded")
def test_the_model_process_answers_what_this_process_would_and_litellm_stays_out_of_it(
    one_model_process: dict[str, Any],
) -> None:
    seen = one_model_process["answers"]

    with ScriptedServer([fault(401)]).start() as server, pytest.raises(llm.ModelError) as here:
        llm.ask(MODEL, MESSAGES, server.base_url, True)
    assert seen["reply"] == [['{"explanation": "e", "edits": []}'], 7, 3, True]
    assert seen["error"] == str(here.value)  # the same one-line reason, across the pipe
    assert seen["tools"] is True and seen["context"] > 100_000  # litellm's map, over there
    assert seen["warm"] is True
    assert seen["litellm here"] is False


def test_requests_in_flight_together_each_get_their_own_answer(
    one_model_process: dict[str, Any],
) -> None:
    seen = one_model_process["in flight"]

    assert seen["slow"][0] == "slow answered" and seen["fast"][0] == "fast answered"
    assert seen["fast"][1] < seen["slow"][1]
    assert seen["litellm here"] is False


def test_a_model_process_that_ends_leaves_the_call_to_this_process() -> None:
    seen = fresh(
        "warmup.start([sys.argv[1]], 0)\n"
        "process = remote.running().process\n"
        "process.kill()\n"
        "process.wait()\n"
        "with ScriptedServer([text('still answered')]).start() as server:\n"
        "    reply = client.ask(sys.argv[1], MESSAGES, server.base_url, False)\n"
        "print(json.dumps({'text': reply.text, 'litellm here': 'litellm' in sys.modules}))\n",
        MODEL,
    )

    assert seen == {"text": "still answered", "litellm here": True}


def test_an_idle_model_process_leaves_and_the_next_heal_starts_another() -> None:
    # A runtime heal in a long-lived process must not keep litellm's ~200 MB for its whole life.
    seen = fresh(
        "remote.IDLE = 1.0\n"
        "with ScriptedServer(responder=lambda body: text('hi')).start() as server:\n"
        "    warmup.start([sys.argv[1]], 0)\n"
        "    first = remote.running()\n"
        "    client.ask(sys.argv[1], MESSAGES, server.base_url, False)\n"
        "    first.process.wait(30)\n"
        "    warmup.start([sys.argv[1]], 0)\n"
        "    second = remote.running()\n"
        "    reply = client.ask(sys.argv[1], MESSAGES, server.base_url, False)\n"
        "    out = {'first ended': first.process.returncode, 'text': reply.text,\n"
        "           'another': second is not None and second is not first,\n"
        "           'litellm here': 'litellm' in sys.modules}\n"
        "remote.stop()\n"
        "print(json.dumps(out))\n",
        MODEL,
    )

    assert seen == {"first ended": 0, "text": "hi", "another": True, "litellm here": False}


def test_a_model_process_that_does_not_answer_fails_the_call_within_its_limit() -> None:
    silent = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    process = remote.ModelProcess(lambda: remote.Link.of(silent))
    try:
        answer = process.call({"op": "ask", "args": {}}, limit=0.5)
    finally:
        process.close()

    assert answer == {"error": "caretaker's model process did not answer within 0.5 s"}
    assert silent.returncode is not None  # closed means ended, not left behind


def test_a_forked_copy_of_the_process_asks_in_itself_and_leaves_the_model_process_alone(
    one_model_process: dict[str, Any],
) -> None:
    seen = one_model_process["forked"]

    assert seen == {"forked": ["hi", True], "here": ["hi", False], "running": True}


def test_started_while_a_test_has_popen_and_socket_patched_it_is_a_real_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The model process is reached in a thread from the first failure on, while the run goes
    # on: a class's or a module's fixture may have subprocess.Popen or socket.socket replaced
    # then. Caretaker's thread uses its own references (own.py).
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("patched by a test")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(socket, "socket", refuse)

    link = remote.child([MODEL])
    nobody = kept.greet(f"caretaker-models-test-{uuid.uuid4().hex}", {"hello": "x"})

    assert link is not None and link.process is not None and link.process.poll() is None
    link.end()
    assert link.process.returncode is not None
    assert nobody is None
