"""The model process kept for the next heal, through real `pytest --heal` sessions: the second
session heals with the process the first one started; in CI nothing is kept.
(The mechanism and its attackers: tests/integration/test_kept_model.py.)"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import CALC, GOOD_MEAN, TEST_CALC, heal_args

from pytest_caretaker.llm import kept, remote
from pytest_caretaker.testing import ScriptedServer, tool_call

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the model process is kept on Linux only"
)


def listening(env: dict[str, str]) -> int | None:
    """The pid of the kept model process of sessions run with env, if one listens."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        try:
            connection.connect("\0" + kept.address(remote.environment(env)))
        except OSError:
            return None
        return kept.peer(connection)[0]


def heal(project: Path, server: ScriptedServer, env: dict[str, str], *more: str) -> str:
    (project / "calc.py").write_text(CALC)  # the bug again: --heal changes no file
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, *heal_args(server), *more, "--heal-no-cache"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text(TEST_CALC)
    return tmp_path


def test_the_next_session_heals_with_the_model_process_the_first_one_kept(project: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
    # A kept process of this test's own: under the interpreter's name, another test's (a
    # parallel worker's, another checkout's suite) answered for it.
    env[kept.SOCKET] = str(project)
    for name in ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILD_NUMBER", "JENKINS_URL"):
        env.pop(name, None)
    fix = tool_call("divide by the count", [{"path": "calc.py", "code": GOOD_MEAN}])
    pids, outs = [], []
    try:
        with ScriptedServer(responder=lambda body: fix).start() as server:
            for _ in range(2):
                outs.append(heal(project, server, env, "--heal-model-keep", "60"))
                pids.append(listening(env))
                assert "HEALED test_calc.py::test_mean" in outs[-1], outs[-1]
    finally:
        for pid in {pid for pid in pids if pid}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    assert pids[0] is not None and pids[0] == pids[1]  # started by the first, used by the second
    # The session that leaves it running says so; the next one, which only used it, does not.
    said = "caretaker: the model process (litellm, imported) stays 60 s for the next heal"
    assert said in outs[0] and said not in outs[1]


def test_in_ci_the_model_process_ends_with_the_session(project: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARETAKER_")}
    env[kept.SOCKET] = str(project)  # else another test's kept process may answer
    env["CI"] = "true"
    fix = tool_call("divide by the count", [{"path": "calc.py", "code": GOOD_MEAN}])
    with ScriptedServer(responder=lambda body: fix).start() as server:
        out = heal(project, server, env)
        left = listening(env)
        asked = len(server.requests)
    if left is not None:
        os.kill(left, signal.SIGKILL)

    assert "HEALED test_calc.py::test_mean" in out, out
    assert left is None
    assert "for the next heal" not in out
    # The model healed it, not the built-in repairer (-q shows no model name; the tokens it spent).
    assert asked >= 1 and "no tokens spent" not in out, out
