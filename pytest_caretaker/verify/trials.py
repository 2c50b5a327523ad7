"""Trials: verify hundreds of one-function candidates per second, for the built-in repairer.

A trial server (trial_server.py, a child process) is a pytest session that collects the tests it
may need once and then runs them per candidate, in a forked child that swaps the code of the
candidate's function in place. This module is the parent's side: it starts the server, sends it
one candidate at a time, and turns each answer into a Trial.

A trial is a fast filter, not the proof: the repairer confirms a candidate that passes here with
the ordinary verifier (a fresh import of the patched file), as it does a model's fix.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pytest_caretaker.verify.channel import SERVER_START_TIMEOUT, Channel, kill_group
from pytest_caretaker.verify.protocol import HUNG, Hello, TrialReply, TrialRequest, TrialSpec

if TYPE_CHECKING:
    from pytest_caretaker.verify.runner import Runner

#: Trials need fork (copy-on-write children of one collected session).
AVAILABLE = hasattr(os, "fork") and sys.platform.startswith("linux")
#: The trial server's entry point, run as ``python -m`` (the module takes the spec's path).
SERVER_MODULE = "pytest_caretaker.verify.trial_server"


@dataclass(frozen=True)
class Trial:
    """The outcome of one trial: every requested test passed, or why not."""

    passed: bool
    reason: str = ""
    unsupported: bool = False  # the candidate cannot be swapped in place: verify it otherwise
    seconds: float = 0.0


@dataclass
class Trials:
    """The parent's handle on a trial server (start it with ``Trials.start``; close it)."""

    channel: Channel
    workdir: Path
    collected: frozenset[str] = frozenset()

    @classmethod
    def start(cls, runner: Runner, nodeids: Sequence[str]) -> Trials | None:
        """Start a server that collects nodeids; None where trials are not available."""
        if not AVAILABLE:
            return None
        workdir = Path(tempfile.mkdtemp(prefix="trials-", dir=runner.scratch))
        spec: TrialSpec = {
            "root": str(runner.root),
            # A trial needs pass or fail, not a rendered traceback (a third of a failure's cost).
            "args": [*runner.args, "--tb=no", "--basetemp", str(workdir / "basetemp")],
            "nodeids": [runner.absolute(nodeid) for nodeid in nodeids],
            "sandbox": runner.policy,
            "test_limit": runner.test_limit,
            "run_limit": runner.timeout,
        }
        spec_file = workdir / "spec.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        command = [sys.executable, "-m", SERVER_MODULE, str(spec_file)]
        channel = Channel.start(command, runner.spawn)
        if channel is None:
            shutil.rmtree(workdir, ignore_errors=True)
            return None
        return cls(channel, workdir)

    def ready(self) -> bool:
        """Wait for the server's collection; False if it failed (then close it)."""
        if self.collected:
            return True
        hello = _hello(self.channel.readline(SERVER_START_TIMEOUT))
        if hello is None or not hello.get("collected"):
            self.close()
            return False
        self.collected = frozenset(hello["collected"])
        return True

    def run(
        self,
        tests: Sequence[str],
        limit: float,
        path: str | None = None,
        qualname: str = "",
        line: int = 0,
        source: str = "",
    ) -> Trial | None:
        """Run tests (in this order) with one function's code replaced; None if the server died.

        path is absolute; source is the whole new text of that file; qualname and line (its first
        line, decorators included) name the function whose code the source replaces.
        """
        request: TrialRequest = {
            "tests": list(tests),
            "path": path,
            "qualname": qualname,
            "line": line,
            "source": source,
            "limit": limit,
        }
        started = time.monotonic()
        if not self.channel.send(json.dumps(request)):
            return None
        answer = self.channel.readline(limit + SERVER_START_TIMEOUT)
        seconds = time.monotonic() - started
        if answer is None:
            return None
        return _trial(json.loads(answer), tests, seconds)

    def close(self) -> None:
        # Nothing of the server's is worth a graceful end (pytest's wind-down costs most of a
        # second); its trials are over, each waited for.
        kill_group(self.channel.process.pid)
        self.channel.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _hello(line: str | None) -> Hello | None:
    """The server's first line, or None when it is not one (the server failed to start)."""
    try:
        hello: object = json.loads(line) if line else None
    except ValueError:
        return None
    return cast(Hello, hello) if isinstance(hello, dict) else None


def _trial(reply: TrialReply, tests: Sequence[str], seconds: float) -> Trial:
    if reply.get("unsupported"):
        return Trial(False, "the function cannot be swapped in place", True, seconds)
    if reply.get("problem"):
        return Trial(False, str(reply["problem"]), seconds=seconds)
    outcomes = reply["outcomes"]
    for nodeid in tests:
        reported = outcomes.get(nodeid)
        outcome = reported["outcome"] if reported is not None else "not run"
        if outcome == "passed":
            continue
        detail = reported["detail"] if reported is not None else ""
        if HUNG in detail:  # a candidate under which the test still hangs says so
            said = detail[detail.rfind(HUNG) :].split("\n", 1)[0]
            return Trial(False, f"{nodeid} {outcome}: {said}", seconds=seconds)
        return Trial(False, f"{nodeid} {outcome}", seconds=seconds)
    return Trial(True, seconds=seconds)
