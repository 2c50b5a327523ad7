"""The Check of a recorded call: call the function again with its pickled arguments and a
candidate's files swapped in memory (child.py), in the sandbox when there is one; it passes when
the call returns without raising, each recorded good call of the function (goodcalls.py) still
returns what it returned, and, when the project has pytest tests that run the function, those
tests (which passed before) still pass. A fix that changes a good call's result is refused with
a reason naming the call: ``mean_gap([1, 4, 9]) returned 4.0 before, 2.6666666666666665 with the
fix``."""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_caretaker.children import WORKER_ENV, worker_token
from pytest_caretaker.problem import Problem
from pytest_caretaker.results import Executed, Verdict
from pytest_caretaker.runtime.child import CASE, DONE, GOOD
from pytest_caretaker.runtime.goodcalls import GoodCall
from pytest_caretaker.runtime.records import Crash
from pytest_caretaker.verify.environment import candidate_env
from pytest_caretaker.verify.judge import judge
from pytest_caretaker.verify.patience import patient_run
from pytest_caretaker.verify.protocol import RAISE, SandboxPolicy
from pytest_caretaker.verify.reading import executed_in
from pytest_caretaker.verify.runner import Runner

CHILD = "pytest_caretaker.runtime.child"
MAX_DETAIL = 3_000


@dataclass(frozen=True)
class Again:
    """A recorded good call made again: whether it gave what it returned, and what it gave."""

    index: int
    same: bool
    now: str  # the result's repr (not redacted), or ``raised ZeroDivisionError: …``


@dataclass(frozen=True)
class Replayed:
    ok: bool  # the call returned (the child said so with the nonce)
    status: int
    output: str
    seconds: float
    timed_out: bool = False
    good: tuple[Again, ...] = ()  # the good calls made before the recorded one, in order
    returned: str = ""  # the recorded call's result, as repr (when it returned)


def _as_is(text: str) -> str:
    return text


@dataclass
class Replay:
    """Calls a crash's function again in a child, with patches (root-relative path -> bytes)."""

    crash: Crash
    root: Path
    timeout: float
    scratch: Path
    policy: SandboxPolicy | None = None
    #: The function's recorded good calls, made again before the recorded call.
    good: Sequence[GoodCall] = ()
    redact: Callable[[str], str] = _as_is  # what a good call gives now, before it is shown

    def run(
        self, patches: Mapping[str, bytes], timeout: float | None = None, trace: bool = False
    ) -> tuple[Replayed, Executed | None]:
        workdir = Path(tempfile.mkdtemp(prefix="replay-", dir=self.scratch))
        try:
            files: dict[str, str] = {}
            for index, (rel, new) in enumerate(sorted(patches.items())):
                (workdir / f"patch{index}.py").write_bytes(new)
                files[str(self.root / rel)] = str(workdir / f"patch{index}.py")
            recorded, where, call = self.crash.data, self.crash.where, self.crash.call
            spec = {
                "root": str(self.root),
                "sys_path": recorded.get("sys_path", [str(self.root)]),
                "module": where.module,
                "qualname": where.qualname,
                "file": where.file,
                "coroutine": where.coroutine,
                "call": str(call),
                "patches": files,
                "good": self._good(workdir),
                "trace": trace,
                "trace_file": str(workdir / "trace.json"),
                "sandbox": self.policy,
            }
            (workdir / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
            limit = self.timeout if timeout is None else min(timeout, self.timeout)
            ran = self._launch(workdir / "spec.json", limit)
            return ran, executed_in(workdir / "trace.json", CASE) if trace else None
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _good(self, workdir: Path) -> list[dict[str, str]]:
        """The good calls' pickles, as files the child reads."""
        files = []
        for index, good in enumerate(self.good):
            args, returned = workdir / f"good{index}.pkl", workdir / f"returned{index}.pkl"
            args.write_bytes(good.args)
            returned.write_bytes(good.returned)
            files.append({"args": str(args), "returned": str(returned)})
        return files

    def _launch(self, spec: Path, timeout: float) -> Replayed:
        interpreter = str(self.crash.data.get("interpreter") or "")
        python = interpreter if os.path.isfile(interpreter) else _python()
        env = dict(os.environ)
        if self.policy is not None:  # the replayed code: no secret, no socket of the user's
            env = candidate_env(env)
        env.update({WORKER_ENV: worker_token(), "CARETAKER_RUNTIME": "off"})
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        cwd = str(self.crash.data.get("cwd") or self.root)
        nonce = secrets.token_hex(16)
        started = time.monotonic()
        process = subprocess.Popen(
            [python, "-m", CHILD, str(spec)],
            cwd=cwd if os.path.isdir(cwd) else self.root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        timed_out = False
        try:
            raw, _ = process.communicate(f"{nonce}\n".encode(), timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process.pid)
            raw, _ = process.communicate()
        finally:
            _kill_group(process.pid)  # what it left running too
        output = raw.decode("utf-8", "replace")
        status = process.returncode
        lines = output.rstrip().splitlines()
        ok = not timed_out and status == 0 and lines[-1:] == [nonce]
        said = [line for line in lines if not line.startswith(nonce)]
        shown = "\n".join(said)
        good = tuple(_again(line) for line in lines if line.startswith(f"{nonce} {GOOD} "))
        returned = next((ln[len(DONE) + 1 :] for ln in said if ln.startswith(DONE)), "")
        seconds = time.monotonic() - started
        return Replayed(ok, status, shown, seconds, timed_out, good, returned if ok else "")


def _again(line: str) -> Again:
    _, _, index, told = line.split(" ", 3)
    data = json.loads(told)
    return Again(int(index), bool(data["same"]), str(data["now"]))


def _python() -> str:
    import sys

    return sys.executable


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def failed(replayed: Replayed, timeout: float) -> str:
    """One line: how the replayed call failed."""
    if replayed.timed_out:
        return f"the call still hangs (stopped after {timeout:g} s)"
    last = next((ln for ln in reversed(replayed.output.splitlines()) if ln.strip()), "")
    said = f": {last.strip()[:200]}" if last else ""
    if replayed.status == 0:
        return f"the call did not return (the process exited without finishing it){said}"
    return f"the call still raises{said}"


#: A fix's changes, as the key of what the recorded call returned with it.
Key = tuple[tuple[str, bytes], ...]


def key(changes: Mapping[str, bytes]) -> Key:
    return tuple(sorted(changes.items()))


@dataclass
class ReplayCheck:
    replay: Replay
    #: The project's pytest tests that run the function and passed before: they must still pass.
    tests: Runner | None = None
    passing: Sequence[str] = field(default_factory=tuple)
    #: Each fix a recorded good call refused, as its new line and the reason: the built-in
    #: repairer moves on to its next candidate without a word, the transcript says them.
    refused: list[str] = field(default_factory=list)
    #: What the recorded call returned with each fix that passed (redacted repr).
    returned: dict[Key, str] = field(default_factory=dict)

    def __call__(
        self, problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict:
        replayed, _ = self.replay.run(changes, timeout)
        if replayed.timed_out and timeout is not None and timeout < self.replay.timeout:
            # Stopped within a limit shorter than the user's: on a busy machine a call that
            # returns can reach it; once more, with more time (patience.py), before it is refused.
            timeout = min(timeout * RAISE, self.replay.timeout)
            replayed, _ = self.replay.run(changes, timeout)
        limit = self.replay.timeout if timeout is None else timeout
        if not replayed.ok:
            detail = replayed.output[-MAX_DETAIL:]
            return Verdict(False, self._failed(replayed, limit), detail, seconds=replayed.seconds)
        changed = differs(self.replay.good, replayed, self.replay.redact)
        if changed:
            self.refused.append(f"{edited(self.replay.root, changes)}: {changed}")
            detail = replayed.output[-MAX_DETAIL:]
            return Verdict(False, changed, detail, seconds=replayed.seconds)
        self.returned[key(changes)] = self.replay.redact(replayed.returned)
        passed = frozenset({problem.lead.nodeid})
        if self.tests is not None and self.passing:
            run = patient_run(self.tests, self.passing, changes, timeout=timeout)
            verdict = judge(run, [], self.passing)
            if not verdict.ok:
                reason = f"the call returns but the {verdict.reason}"
                return Verdict(False, reason, verdict.detail, seconds=replayed.seconds)
            passed |= verdict.passed
        return Verdict(True, passed=passed, seconds=replayed.seconds)

    def _failed(self, replayed: Replayed, limit: float) -> str:
        """How the replay failed, and in which recorded good call when it was making one."""
        good = self.replay.good
        said = failed(replayed, limit)
        if len(replayed.good) >= len(good):
            return said
        return f"{said}, in the recorded good call {good[len(replayed.good)].call}"


def differs(good: Sequence[GoodCall], replayed: Replayed, redact: Callable[[str], str]) -> str:
    """The first good call that gives something else now, as a reason; "" when none does."""
    made = {again.index: again for again in replayed.good}
    for index, call in enumerate(good):
        again = made.get(index)
        if again is None or not again.same:
            now = redact(again.now) if again is not None else "nothing (it was not made)"
            return f"{call.call} returned {call.result} before, {now} with the fix"
    return ""


def reproduced(good: Sequence[GoodCall], replayed: Replayed) -> list[GoodCall]:
    """The good calls that give what they returned when recorded (replayed: with the code as
    it is); the others depend on state, on time, or on a source that changed since."""
    same = {again.index for again in replayed.good if again.same}
    return [call for index, call in enumerate(good) if index in same]


def edited(root: Path, changes: Mapping[str, bytes]) -> str:
    """What a fix changes, in a few words: its first new lines (``return a / (len(b) + 1)``)."""
    added: list[str] = []
    for rel, after in sorted(changes.items()):
        try:
            before = (root / rel).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            before = []
        new = after.decode("utf-8", "replace").splitlines()
        for line in difflib.unified_diff(before, new, lineterm="", n=0):
            if line.startswith("+") and not line.startswith("+++") and line[1:].strip():
                added.append(line[1:].strip())
    shown = " / ".join(f"`{line[:100]}`" for line in added[:2])
    return shown or "a fix that only removes lines"
