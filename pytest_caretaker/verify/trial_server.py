"""The trial server: the child side of trials (the parent's side is trials.py).

Started as ``python -m pytest_caretaker.verify.trial_server SPEC.json``. It is a pytest session
that collects the spec's tests once and then, instead of running them, waits for candidates on
stdin. For each one it forks: the child swaps the code of the candidate's function in place (every
reference to the function object sees the new code), runs the tests in order through pytest's own
runtest protocol, stops at the first that does not pass, and reports. The server kills a child
that outlives its time limit together with its process group; a child that exits without
reporting (``os._exit``, a signal) reports nothing, and nothing is not a pass. Each test has its
own limit too (timer.py), at most ten times what the tests that passed in earlier trials took, so
a candidate under which a test still hangs fails in a fraction of a second; the code as it is
(a trial with no path) runs every test, to learn that. Apart from those durations the server's
state never changes, so every trial starts from the same clean state.

Protocol (JSON lines, typed in protocol.py): the server says a Hello once, then answers each
TrialRequest with a TrialReply. Like worker.py, its sibling, it imports nothing of the parent's
side: the standard library, pytest, and the small modules both sides share.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import IO, cast

import pytest

from pytest_caretaker.verify import behaviour, sandbox
from pytest_caretaker.verify.channel import cap_memory, failure_line
from pytest_caretaker.verify.functions import Index
from pytest_caretaker.verify.pool import Done, Pool
from pytest_caretaker.verify.protocol import (
    Cancel,
    Comparison,
    Hello,
    SandboxPolicy,
    TrialReply,
    TrialRequest,
    TrialSpec,
)
from pytest_caretaker.verify.pytest_private import run_item, use_basetemp
from pytest_caretaker.verify.timer import Limits, derived
from pytest_caretaker.verify.worker import WorkerPlugin

#: Bytes of address space a trial may add to the server's (less than a whole run's headroom).
TRIAL_HEADROOM = 2 << 30
#: The least a test may take in a trial, whatever its neighbours take (like the built-in
#: repairer's least time for a whole trial, it keeps a trial a filter, not a judge of speed).
TRIAL_FLOOR = 0.5
#: Bytes of reply a trial may send; more is a failed trial, not a reason to fill memory.
MAX_REPLY = 16 << 20


class TrialPlugin(WorkerPlugin):
    def __init__(
        self,
        root: Path,
        commands: IO[str],
        replies: IO[str],
        rules: SandboxPolicy | None = None,
        workdir: str = "",
        limits: Limits | None = None,
        workers: int = 1,
    ) -> None:
        super().__init__(root, {}, trace=False, limits=limits or Limits(None, float("inf")))
        self.pool = Pool(workers, MAX_REPLY)
        self.root = root
        self.commands = commands
        self.replies = replies
        self.rules = rules
        self.workdir = workdir
        #: The function objects a candidate may replace (functions.py), once collected.
        self._functions: Index | None = None
        #: What the passing tests of earlier trials took: a trial's tests get a limit from it.
        self._durations: dict[str, float] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.session = session
        items = {item.nodeid: item for item in session.items}
        # Children share the server's memory copy-on-write; a garbage collection in a child
        # would touch (and so copy) every object of the session. Frozen objects are left alone.
        self._functions = Index(self.root)
        gc.freeze()
        self._reply(Hello(collected=sorted(items), errors=self.collect_errors))
        commands, pending, more = self.commands.fileno(), b"", True
        while more or self.pool.busy:
            ready, done = self.pool.wait([commands] if more else [])
            for job in done:
                self._reply(self._finished(job))
            if ready:
                chunk = os.read(commands, 65536)
                more = bool(chunk)
                *lines, pending = (pending + chunk).split(b"\n")
                for line in filter(None, map(bytes.strip, lines)):
                    self._command(json.loads(line), items)
            if done and not self.pool.busy:
                sandbox.reap()  # between trials: nothing any of them started is left
        return True

    def _reply(self, message: Hello | TrialReply) -> None:
        self.replies.write(json.dumps(message) + "\n")
        self.replies.flush()

    def _command(self, command: TrialRequest | Cancel, items: Mapping[str, pytest.Item]) -> None:
        if "cancel" in command:
            self.pool.cancel(cast(Cancel, command)["cancel"])
            return
        request = command
        live: list[types.FunctionType] = []
        if request["path"]:
            live = self._live(request["path"], request["qualname"], request["line"])
            if not live:
                self._reply({"id": request["id"], "unsupported": True})
                return
        body = partial(self._child, request, items, live)
        self.pool.submit(request["id"], request["limit"], body)

    def _finished(self, job: Done) -> TrialReply:
        return {"id": job.key, "seconds": job.seconds, "cpu": job.cpu, **self._answer(job)}

    def _answer(self, job: Done) -> TrialReply:
        if len(job.data) > MAX_REPLY:
            return {"problem": f"the test process sent more than {MAX_REPLY} bytes of reply"}
        if not job.finished:
            return {"problem": f"the tests did not finish within {job.limit:.2g} s"}
        if not job.data:
            code = os.waitstatus_to_exitcode(job.status)
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            return {"problem": f"the test process {how} before reporting"}
        try:
            answer: TrialReply = json.loads(job.data)
        except ValueError:  # cut short: the child died while it wrote
            return {"problem": "the test process died while it reported"}
        for nodeid, seconds in answer.get("durations", {}).items():
            self._durations[nodeid] = max(seconds, self._durations.get(nodeid, 0.0))
        return answer

    def _child(
        self,
        request: TrialRequest,
        items: Mapping[str, pytest.Item],
        live: Sequence[types.FunctionType],
        slot: int,
        write: int,
    ) -> None:
        """The forked child's whole life: run the trial, write its reply to the pipe."""
        # The candidate must not read the next request nor write a reply of its own.
        os.close(self.commands.fileno())
        os.close(self.replies.fileno())
        try:
            if self.rules is not None:
                sandbox.confine_run(self.rules, self.workdir, TRIAL_HEADROOM)
            # Trials run side by side: each slot's tmp_path apart from the others'.
            use_basetemp(self.session.config, Path(self.workdir, f"basetemp-{slot}"))
            # A test that hangs fails within the trial's limit, and within ten times what the
            # tests that passed so far took (a trial is a filter; the verifier proves with the
            # project's); before any has passed here, within the parent's limit from the
            # session's passing tests, so that a test that hangs costs the first trial that, not
            # the project's pytest-timeout.
            limits = self.time_limits.limits
            run = min(limits.run, request["limit"])
            cap = derived(self._durations.values(), TRIAL_FLOOR) or limits.test
            self.time_limits.limits = replace(limits, run=run, cap=cap)
            cap_memory(TRIAL_HEADROOM)
            reply = self._run(request, items, live)
        except pytest.exit.Exception:  # the candidate's pytest.exit(): no reply, so no pass
            raise
        except Exception as error:  # caretaker's own: whatever else a test raises is its outcome
            reply = {"problem": f"caretaker's trial process failed: {failure_line(error)}"}
        data = json.dumps(reply).encode()
        while data:
            data = data[os.write(write, data) :]

    def _run(
        self,
        request: TrialRequest,
        items: Mapping[str, pytest.Item],
        live: Sequence[types.FunctionType],
    ) -> TrialReply:
        if live:
            try:
                code = function_code(request, live[0].__code__.co_filename)
            except (SyntaxError, ValueError) as error:
                return {"problem": f"the candidate does not compile: {error}"}
            if code is None or any(f.__code__.co_freevars != code.co_freevars for f in live):
                return {"unsupported": True}
            for function in live:
                function.__code__ = code
            comparison = request.get("compare")
            if comparison:
                return self._compare(request, comparison, items, live[0], code)
        tests = [items[nodeid] for nodeid in request["tests"] if nodeid in items]
        self.outcomes.clear()
        durations: dict[str, float] = {}
        for index, item in enumerate(tests):
            following = tests[index + 1] if index + 1 < len(tests) else None
            # Reports go straight to the outcomes, not through the reporting hooks: nobody
            # reads a trial's terminal output.
            reports = run_item(item, following)
            for report in reports:
                self.pytest_runtest_logreport(report)
            reported = self.outcomes.get(item.nodeid)
            if reported is not None and reported["outcome"] == "passed":
                durations[item.nodeid] = sum(report.duration for report in reports)
            elif live:  # the code as it is runs every test, to learn what the passing take
                break  # one test that does not pass decides a candidate's trial
        return {"outcomes": self.outcomes, "durations": durations}

    def _compare(
        self,
        request: TrialRequest,
        comparison: Comparison,
        items: Mapping[str, pytest.Item],
        function: types.FunctionType,
        code: types.CodeType,
    ) -> TrialReply:
        """Every test runs on the code as it is, the function's calls captured; then each
        variant runs beside it on those calls and on inputs derived from them."""
        variants = [code]
        for text in comparison["variants"]:
            made = function_code({**request, "source": text}, code.co_filename)
            if made is None or made.co_freevars != code.co_freevars:
                return {"unsupported": True}
            variants.append(made)
        capture = behaviour.Capture(code)
        tests = [items[nodeid] for nodeid in request["tests"] if nodeid in items]
        failing = set(comparison["failing"])
        for index, item in enumerate(tests):
            following = tests[index + 1] if index + 1 < len(tests) else None
            capture.origin = "failing" if item.nodeid in failing else "passing"
            with capture:
                run_item(item, following)
        return {"behaviour": behaviour.compare(function, variants, capture.calls)}

    def _live(self, path: str, qualname: str, line: int) -> list[types.FunctionType]:
        """The function objects whose code a candidate replaces."""
        return self._functions.find(path, qualname, line) if self._functions is not None else []


def function_code(request: TrialRequest, filename: str) -> types.CodeType | None:
    """The new code object of the candidate's function, compiled from the whole new file.

    Only code under test is swapped (never a test module, whose asserts pytest rewrites).
    Raises SyntaxError (or ValueError) when the file does not compile.
    """
    module_code = compile(request["source"], filename, "exec", dont_inherit=True)
    name = request["qualname"].rsplit(".", 1)[-1]
    for code in _codes(module_code):
        same = code.co_name == name and code.co_firstlineno == request["line"]
        if same and _qualname(code, request["qualname"]):
            return code
    return None


def _qualname(code: types.CodeType, qualname: str) -> bool:
    own = getattr(code, "co_qualname", None)  # Python 3.11+
    return own is None or own == qualname


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield constant
            yield from _codes(constant)


def serve(spec_path: str) -> int:
    """Collect the spec's tests, then answer trial requests from stdin until it closes."""
    spec: TrialSpec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    sys.dont_write_bytecode = True
    rules = spec.get("sandbox")
    if rules is not None:  # this process waits; its child, pid 1 of a sandbox, serves
        sandbox.confine_server(rules)
    # The protocol keeps the real stdin and stdout (pytest's capturing replaces fds 0-2 during the
    # session); pytest's own output, and the tests', goes nowhere.
    commands = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    workdir = str(Path(spec_path).parent)
    limits = Limits(spec["test_limit"], spec["run_limit"], scale=spec["limit_scale"])
    root = Path(spec["root"]).resolve()
    plugin = TrialPlugin(root, commands, replies, rules, workdir, limits, spec["workers"])
    pytest.main([*spec["args"], *spec["nodeids"]], plugins=plugin.plugins())
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
