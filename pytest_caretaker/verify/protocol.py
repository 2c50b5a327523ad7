"""What crosses the process boundary of verification, as JSON: the specs a parent writes for a
child, the result a worker writes back, and the requests and replies of a trial server.

Both sides import this module, so it holds only types and depends on the standard library alone:
a child must not import the parent's machinery to read what the parent wrote (pytest-xdist's
remote side is kept as small). A TypedDict is checked where it is built; what ``json.loads``
returns is taken on trust, since both ends are this package at the same version.
"""

from __future__ import annotations

from typing import Literal, TypedDict

#: A run's result file, beside its spec: the parent reads it after the run's clean exit.
RESULT = "result.json"
#: The folder beside a run's spec that the run may write in; the spec, the candidate's files,
#: the output and the result around it are not writable to the run.
RUN_SPACE = "work"

#: How the detail of a test that outlived its own time limit ends (timer.py writes it; the
#: parent's side recognises a hang by it).
HUNG = "the test did not finish within"
#: What a hung test's line adds when it waited for a processor for much of its limit (timer.py):
#: the machine was busy, and a run again with more time may see it pass (patience.py).
BUSY = "a busy machine"
#: How many times as long as its first limits a test so stopped gets when it is run again.
RAISE = 3.0


class SandboxPolicy(TypedDict):
    """What a sandboxed child may do (sandbox.py): see the system, its interpreter and the
    visible paths (view.py), write only under scratch, read none of the hidden paths, and reach
    the network only when network is true; the blank files (the project's unread .env files:
    record/dotenvs.py) are empty files to it, and each shown file (a git config) reads as the
    copy named beside it (record/gitdirs.py: without credentials)."""

    scratch: str
    hidden: list[str]
    network: bool
    visible: list[str]
    blank: list[str]
    shown: dict[str, str]


class SessionSpec(TypedDict):
    """The pytest session a child runs: in which project, with which arguments, which tests."""

    root: str
    args: list[str]
    nodeids: list[str]  # absolute paths: the child's working directory does not matter
    sandbox: SandboxPolicy | None  # None: the child runs unconfined (--heal-sandbox off)
    # Seconds each test may take (timer.py): the project's pytest-timeout setting wins, else
    # test_limit (derived by the parent from the passing tests; None: not known), at most a share
    # of run_limit, the whole run's.
    test_limit: float | None
    run_limit: float
    limit_scale: float  # the limits above, this many times as long (a run again: patience.py)


class RunSpec(SessionSpec):
    """One verification run by worker.py."""

    patches: dict[str, str]  # absolute path of a project file -> a file with its new bytes
    trace: bool


class TrialSpec(SessionSpec):
    """A trial server's session (trial_server.py): collected once, then run per candidate."""

    workers: int  # trials at once, each a forked child


class ReportedOutcome(TypedDict):
    """How one test ended; detail is the end of its report when it did not pass."""

    outcome: Literal["passed", "failed", "error", "skipped"]
    detail: str
    seconds: float  # the call's, of a test that passed (0 otherwise)


class Trace(TypedDict):
    """Per test id: the project functions it ran, in first-call order, and the lines it ran."""

    # (root-relative path, first line); JSON brings each back as a two-item list, which unpacks
    # the same.
    functions: dict[str, list[tuple[str, int]]]
    lines: dict[str, dict[str, list[int]]]  # root-relative path -> line numbers, sorted
    spawned: dict[str, list[str]]  # the programs a test started (short command lines)
    # (function's path, its first line, class's path, class's qualname): each project class
    # a method ran on (its self or cls), in first-seen order
    classes: dict[str, list[tuple[str, int, str, str]]]


class RunReport(TypedDict):
    """What a worker's run found: written to the spec's result file once the session ends."""

    exit_code: int
    outcomes: dict[str, ReportedOutcome]
    collect_errors: list[str]
    trace: Trace | None  # None unless the spec asked for a trace


class Session(TypedDict):
    """What a warm server collects once (warm.py): pytest's arguments and the test files."""

    args: list[str]
    paths: list[str]  # absolute


class Hello(TypedDict):
    """A trial server's first line, once it has collected: the test ids it can run."""

    collected: list[str]
    errors: list[str]  # collection errors, for whoever wonders why a test is missing


class Comparison(TypedDict):
    """What a trial that compares behaviour (behaviour.py) needs beyond a trial's: each variant's
    whole file text (the request's own source is the code as it is), and which of the tests
    fail (their calls are the failing inputs)."""

    variants: list[str]
    failing: list[str]


class Result(TypedDict):
    """What one variant did on one input: returned a value (its type and repr), raised (the
    exception's type), or ran out of time; equal results on an input share a group."""

    kind: Literal["return", "raise", "timeout"]
    type: str
    repr: str
    group: int
    line: int  # for a raise: the function's line it came through last (0: none, or no raise)


class Compared(TypedDict):
    """One input: the call as text, where it came from ("failing", "passing", or "derived:
    how"), and each variant's result (the first is the code as it is)."""

    call: str
    origin: str
    results: list[Result]


class TrialRequest(TypedDict):
    """One candidate: run tests (in this order, to the first that does not pass) with the code of
    one function replaced; with no path, the tests run on the code as it is. Its reply carries
    its id: trials run several at once, and end in any order."""

    id: int
    tests: list[str]
    path: str | None  # absolute
    qualname: str
    line: int  # the function's first line, decorators included
    source: str  # the whole new text of the file
    limit: float  # seconds
    #: Set to compare variants of the function beyond the tests (behaviour.py): the tests run
    #: on source, every one, while the function's calls are captured.
    compare: Comparison | None


class TrialReply(TypedDict, total=False):
    """The answer to a TrialRequest: the outcomes, or the problem that stopped the tests, or
    unsupported (the function cannot be swapped in place; verify it otherwise)."""

    id: int  # the request's
    outcomes: dict[str, ReportedOutcome]
    durations: dict[str, float]  # seconds each test that passed took, setup to teardown
    problem: str
    unsupported: bool
    seconds: float  # from the trial's start to its end, in the server
    cpu: float  # CPU seconds the trial's process used
    behaviour: list[Compared]  # for a request to compare


class Cancel(TypedDict):
    """Trials the parent no longer wants (its search ended): killed or never started; no reply."""

    cancel: list[int]
