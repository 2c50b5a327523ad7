"""Trials: verify hundreds of one-function candidates per second, for the built-in repairer.

A trial server (trial_server.py, a child process) is a pytest session that collects the tests it
may need once and then runs them per candidate, in a forked child that swaps the code of the
candidate's function in place, up to ``workers`` children at once. This module is the parent's
side: it starts the server, keeps as many candidates in flight as the server has workers, and
turns each answer into a Trial, in the order the candidates were sent (``map``), so a search that
takes the first candidate to pass takes the same one with one worker or sixteen.

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
from collections import deque
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pytest_caretaker.verify.channel import SERVER_START_TIMEOUT, Channel, kill_group
from pytest_caretaker.verify.protocol import (
    HUNG,
    Cancel,
    Compared,
    Comparison,
    Hello,
    TrialReply,
    TrialRequest,
    TrialSpec,
)

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
    #: For a trial that compares variants (Trials.compare): each input and what each did.
    behaviour: tuple[Compared, ...] = ()
    #: CPU seconds its process used: what the built-in repairer's budget counts (work.py).
    cpu: float = 0.0


@dataclass(frozen=True)
class Candidate:
    """What a trial runs: tests with one function's code replaced (no path: the code as it is).

    path is absolute; source is the whole new text of that file; qualname and line (its first
    line, decorators included) name the function whose code the source replaces.
    """

    tests: Sequence[str]
    limit: float
    path: str | None = None
    qualname: str = ""
    line: int = 0
    source: str = ""
    compare: Comparison | None = None


def workers_default() -> int:
    """Trials at once when not told: one per core this process may use, at most MAX_WORKERS."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, MAX_WORKERS))


#: The most trials a server runs at once by default: beyond, the parent's confirming runs and
#: the candidates' generation are the bottleneck, not the trials.
MAX_WORKERS = 8


@dataclass
class Trials:
    """The parent's handle on a trial server (start it with ``Trials.start``; close it)."""

    channel: Channel
    workdir: Path
    workers: int = 1
    collected: frozenset[str] = frozenset()
    _sent: int = 0  # ids given so far
    _early: dict[int, TrialReply] = field(default_factory=dict)  # replies not yet asked for
    _dead: bool = False

    @classmethod
    def start(cls, runner: Runner, nodeids: Sequence[str], workers: int = 1) -> Trials | None:
        """Start a server that collects nodeids and runs up to workers trials at once; None
        where trials are not available."""
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
            "limit_scale": 1.0,
            "workers": workers,
        }
        spec_file = workdir / "spec.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        command = [sys.executable, "-m", SERVER_MODULE, str(spec_file)]
        channel = Channel.start(command, runner.spawn)
        if channel is None:
            shutil.rmtree(workdir, ignore_errors=True)
            return None
        return cls(channel, workdir, workers)

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
        """One trial (see Candidate); None if the server died."""
        return next(self.map([Candidate(tests, limit, path, qualname, line, source)]))

    def compare(
        self,
        tests: Sequence[str],
        failing: Sequence[str],
        limit: float,
        function: tuple[str, str, int],
        source: str,
        variants: Sequence[str],
    ) -> Trial | None:
        """Run every one of tests on source (the file as it is) capturing the calls of function
        (path, qualname, first line), then each variant (a whole new text of that file) beside
        the code as it is on those calls and inputs derived from them (behaviour.py)."""
        path, qualname, line = function
        comparison: Comparison = {"variants": list(variants), "failing": list(failing)}
        candidate = Candidate(tests, limit, path, qualname, line, source, comparison)
        return next(self.map([candidate]))

    def map(self, candidates: Iterable[Candidate]) -> Generator[Trial | None, None, None]:
        """The trial of each candidate, in their order, with up to workers of them in flight
        (taken from candidates as the trials before them end); None for each once the server
        died. Closing the iterator early cancels the trials still in flight."""
        source = iter(candidates)
        flight: deque[tuple[int, Candidate, float]] = deque()
        try:
            while True:
                while len(flight) < self.workers and (candidate := next(source, None)):
                    flight.append((self._send(candidate), candidate, time.monotonic()))
                if not flight:
                    return
                key, candidate, sent = flight.popleft()
                reply = self._reply(key, candidate.limit)
                yield None if reply is None else _trial(reply, candidate.tests, sent)
        finally:
            unwanted = [key for key, _, _ in flight]
            for key in unwanted:
                self._early.pop(key, None)
            if unwanted and not self._dead:
                cancel: Cancel = {"cancel": unwanted}
                self.channel.send(json.dumps(cancel))

    def _send(self, candidate: Candidate) -> int:
        self._sent += 1
        request: TrialRequest = {
            "id": self._sent,
            "tests": list(candidate.tests),
            "path": candidate.path,
            "qualname": candidate.qualname,
            "line": candidate.line,
            "source": candidate.source,
            "limit": candidate.limit,
            "compare": candidate.compare,
        }
        if not self._dead and not self.channel.send(json.dumps(request)):
            self._dead = True
        return self._sent

    def _reply(self, key: int, limit: float) -> TrialReply | None:
        """The reply to request key (keeping those to later requests that come first)."""
        while key not in self._early and not self._dead:
            line = self.channel.readline(limit + SERVER_START_TIMEOUT)
            reply = cast(TrialReply | None, _message(line))
            if reply is None:
                self._dead = True
            elif reply.get("id", 0) > key:  # an earlier one, ended first; older: cancelled
                self._early[reply["id"]] = reply
            elif reply.get("id") == key:
                return reply
        return self._early.pop(key, None)

    def close(self) -> None:
        # Nothing of the server's is worth a graceful end (pytest's wind-down costs most of a
        # second); its trials are over, each waited for.
        kill_group(self.channel.process.pid)
        self.channel.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _hello(line: str | None) -> Hello | None:
    """The server's first line, or None when it is not one (the server failed to start)."""
    return cast(Hello | None, _message(line))


def _message(line: str | None) -> dict[str, Any] | None:
    try:
        message: object = json.loads(line) if line else None
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _trial(reply: TrialReply, tests: Sequence[str], sent: float) -> Trial:
    # The server's own time: from when the trial started, not from when it was sent.
    seconds = reply.get("seconds", time.monotonic() - sent)
    trial = _outcome(reply, tests)
    return replace(trial, seconds=seconds, cpu=reply.get("cpu", 0.0))


def _outcome(reply: TrialReply, tests: Sequence[str]) -> Trial:
    if reply.get("unsupported"):
        return Trial(False, "the function cannot be swapped in place", True)
    if reply.get("problem"):
        return Trial(False, str(reply["problem"]))
    if "behaviour" in reply:
        return Trial(True, behaviour=tuple(reply["behaviour"]))
    outcomes = reply["outcomes"]
    for nodeid in tests:
        reported = outcomes.get(nodeid)
        outcome = reported["outcome"] if reported is not None else "not run"
        if outcome == "passed":
            continue
        detail = reported["detail"] if reported is not None else ""
        if HUNG in detail:  # a candidate under which the test still hangs says so
            said = detail[detail.rfind(HUNG) :].split("\n", 1)[0]
            return Trial(False, f"{nodeid} {outcome}: {said}")
        return Trial(False, f"{nodeid} {outcome}")
    return Trial(True)
