from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_caretaker.testing import ScriptedServer, text

# Importing litellm must never reach the network for its price table.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# A shell without job control starts a background job (`.ci/run &` in a script) with Ctrl-C
# ignored, and every process it starts inherits that: the tests that press Ctrl-C (to a run
# in process or to one they start) then saw nothing happen, 12 of them. The suite takes Ctrl-C
# as a terminal gives it; a process it starts gets the default again (an ignored signal stays
# ignored across exec, a handled one does not).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


#: The installed pytest plugins the suite's pytest processes go without (see _no_caretaker_env).
QUIET_PLUGINS = "-p no:anyio -p no:hypothesispytest"
#: Nothing listens on the discard port: "no local Ollama", whatever runs on this machine.
NO_OLLAMA = "127.0.0.1:9"


@pytest.fixture(autouse=True)
def _no_caretaker_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own configuration stays out of the tests: caretaker's variables, provider
    keys (which would choose a model) and a local Ollama; no model process outlives a test."""
    from pytest_caretaker.llm.models import PROVIDERS

    keys = {key for provider in PROVIDERS for key in provider.keys}
    for name in list(os.environ):
        if name.startswith("CARETAKER_") or name in keys:
            monkeypatch.delenv(name)
    # The suite starts over a thousand pytest processes (e2e runs, verification workers, warm
    # servers): the plugins of the test extra that no test of ours uses there, hypothesis' and
    # anyio's (litellm brings it), cost ~0.3 s of CPU each at every start. A test that needs
    # PYTEST_ADDOPTS sets its own.
    monkeypatch.setenv("PYTEST_ADDOPTS", QUIET_PLUGINS)
    monkeypatch.setenv("OLLAMA_HOST", NO_OLLAMA)
    # A model process kept for the next session would outlive the test (test_kept_model.py
    # keeps one on purpose).
    monkeypatch.setenv("CARETAKER_MODEL_KEEP", "0")


@pytest.fixture(autouse=True)
def _quiet_pytester(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytester removes PYTEST_ADDOPTS when it is made: its runs, and every verification worker
    and subprocess of theirs, then loaded hypothesis' plugin (1.3 s of CPU at each start) and
    anyio's. A test that uses pytester gets the suite's variable back once pytester is made."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
        monkeypatch.setenv("PYTEST_ADDOPTS", QUIET_PLUGINS)


@pytest.fixture(autouse=True)
def _no_remembered_model_info() -> None:
    """What caretaker learnt of a model is remembered per process by (model, address); a later
    test's scripted server may get an earlier one's port."""
    from pytest_caretaker.llm import models

    models._INFO.clear()


@pytest.fixture(scope="session", autouse=True)
def _heal_modules_loaded() -> None:
    # In-process pytester runs restore sys.modules afterwards; a module first imported inside
    # one is removed again, and the next run imports it anew: libcst's native parser then
    # returns nodes of the first import's classes (isinstance fails). Import them once, outside.
    import libcst.metadata  # noqa: F401

    import pytest_caretaker.engine  # noqa: F401  (all of the heal pipeline)


@pytest.fixture(scope="session")
def _litellm_loaded() -> None:
    # The same for litellm, which also breaks importlib.metadata when half-removed; it takes
    # seconds to import, so only the tests that talk to a model pay for it. Its first request
    # imports the HTTP stack (httpx, httpcore, h11) lazily: made inside an in-process run, that
    # import is half undone afterwards and every later request fails ("cannot import name
    # 'READERS' from 'h11._readers'"). So one request is made here, outside any run.
    from pytest_caretaker.llm import client

    with ScriptedServer().start() as server:
        server.script(text("warm"))
        client.ask("openai/gpt-4o-mini", [{"role": "user", "content": "x"}], server.base_url, False)


@pytest.fixture
def llm(_litellm_loaded: None) -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


@pytest.fixture
def serve(_litellm_loaded: None) -> Iterator[Any]:
    """Start ScriptedServers (Ollama's and the OpenAI-compatible API) and stop them afterwards."""
    started: list[ScriptedServer] = []

    def start(**options: Any) -> ScriptedServer:
        server = ScriptedServer(**options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def runners() -> Iterator[Any]:
    """Makes Runners (Runner's arguments) and closes each at the test's end: a Runner makes its
    scratch folder in the system's temporary folder when made, and only close() removes it."""
    from pytest_caretaker.verify.runner import Runner

    made: list[Runner] = []

    def make(*args: Any, **options: Any) -> Runner:
        made.append(Runner(*args, **options))
        return made[-1]

    yield make
    for runner in made:
        runner.close()
