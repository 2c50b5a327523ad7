"""What the engine works on, and the two roles it drives.

A **Problem** is one root cause: every failing case it shows up in (the first leads the repair)
and the regression set, the cases that pass now and must keep passing. A **Check** proves a
candidate for a problem: it runs the cases and the regression set with the changed sources served
in memory and returns a Verdict. A **Repairer** is one link of the chain the engine runs for a
problem (a remembered fix, the built-in repairer, a model): it gets a Task and proposes, and every
proposal goes through ``Task.prove`` (guards, apply, the check) before it can be a fix.

Today a case is a failing pytest test; a command that must exit 0 and a recorded call that must not
raise are the next kinds, each with its own Check. Nothing here imports pytest.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_caretaker.changes.lineage import Changes
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.results import (
    Accepted,
    Candidate,
    Executed,
    Failure,
    Proposal,
    Rejected,
    Spend,
    Verdict,
    Via,
)
from pytest_caretaker.settings import DEFAULT_MAX_TOKENS, DEFAULT_SESSION_TOKENS, Settings


@dataclass(frozen=True)
class Problem:
    cases: tuple[Failure, ...]  # failing cases of one root cause; the first leads the repair
    regression: tuple[str, ...] = ()  # ids of cases that pass now and must keep passing

    @property
    def lead(self) -> Failure:
        return self.cases[0]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(case.nodeid for case in self.cases)


class Check(Protocol):
    """Proves changes (path -> new bytes) for a problem; timeout may shorten the run's limit."""

    def __call__(
        self, problem: Problem, changes: Mapping[str, bytes], timeout: float | None = None
    ) -> Verdict: ...


class Log(Protocol):
    """Where a repairer says what it did, for the transcript of the problem."""

    def add(
        self, title: str, text: str = "", code: str | None = None, language: str = ""
    ) -> None: ...

    def prompt(self, messages: Sequence[Mapping[str, Any]]) -> None: ...


@dataclass
class Limits:
    """What the engine lets repairs spend: US dollars (--heal-budget) and tokens
    (--heal-session-tokens) over the whole session, and its healing time
    (--heal-session-budget), shared by every repair; and tokens per problem, over every model of
    the chain and every attempt (--heal-max-tokens). A repairer asks ``stop`` before each
    request, reports each cost with ``charge``, and searches no longer than ``seconds_left``."""

    budget: float | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    session_seconds: float | None = None
    spent: float = 0.0
    started: float = field(default_factory=time.monotonic)
    session_tokens: int = DEFAULT_SESSION_TOKENS
    tokens: int = 0  # spent by the session so far
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def of(cls, settings: Settings, started: float | None = None) -> Limits:
        """The limits the settings give, the session's time counted from started (now)."""
        return cls(
            settings.budget,
            settings.max_tokens,
            settings.healing_budget,
            started=time.monotonic() if started is None else started,
            session_tokens=settings.session_tokens,
        )

    def seconds_left(self) -> float | None:
        """Seconds of the session's healing time left; None without a limit."""
        if self.session_seconds is None:
            return None
        return self.session_seconds - (time.monotonic() - self.started)

    def out_of_time(self) -> str | None:
        """Why no more healing may start: the session's healing time is spent; else None."""
        left = self.seconds_left()
        if left is not None and left <= 0:
            return f"the session's healing budget of {self.session_seconds:g} s is spent"
        return None

    def charge(self, cost: float, tokens: int = 0) -> None:
        with self._lock:  # repairs run in threads
            self.spent += cost
            self.tokens += tokens

    def stop(self, spend: Spend, earlier: int = 0) -> str | None:
        """Why no further request may be made for a problem whose repair spent this (and
        earlier tokens, in the links of the chain before), or None."""
        if self.budget is not None and self.spent >= self.budget:
            return (
                f"the --heal-budget of ${self.budget:.2f} is spent (${self.spent:.4f} used); "
                "raise it to heal the rest"
            )
        late = self.out_of_time()
        if late is not None:
            return late
        if self.tokens >= self.session_tokens:
            return (
                f"the session used {self.tokens:,} tokens, the cap is {self.session_tokens:,} "
                "(raise it with --heal-session-tokens)"
            )
        used = spend.tokens + earlier
        if used >= self.max_tokens:
            return (
                f"this problem used {used:,} tokens, the cap is {self.max_tokens:,} "
                "(raise it with --heal-max-tokens)"
            )
        return None


@dataclass(frozen=True)
class Task:
    """What every repairer gets for one problem."""

    problem: Problem
    suspects: tuple[Suspect, ...]  # the functions that may hold the bug, best first
    executed: Mapping[str, Executed]  # what each case ran in the traced baseline
    baseline_seconds: float  # how long the baseline run took
    prove: Callable[[Proposal], Accepted | Rejected]  # guards, apply in memory, check
    log: Log
    limits: Limits = field(default_factory=Limits)
    #: Tokens the links of the chain before this one spent on the problem (its cap is theirs
    #: too).
    earlier_tokens: int = 0
    changes: Changes | None = None  # since the lead last passed, when the history tells
    #: A fix another problem proved since this repair began, if one heals this problem (asked
    #: by a repairer that waited for its turn: repair/proved.py).
    proved_since: Callable[[], Healed | Failed] | None = None


@dataclass(frozen=True)
class Healed:
    candidate: Candidate
    spend: Spend
    by: str  # the model or "builtin" whose fix it is (the one that first found a remembered fix)
    verdict: Verdict  # the check that proved it: what passed
    via: Via = "repair"
    shared_with: str = ""  # with via "shared": the case whose repair found the fix


@dataclass(frozen=True)
class Failed:
    reason: str
    spend: Spend = field(default_factory=Spend)
    #: False when the next repairer of the chain should be asked (this one could not work on
    #: the problem at all: no fix parsed, an error); True when its checked attempts decide.
    decisive: bool = False
    #: What the user might do next, said only when this repairer has the last word (the
    #: built-in repairer's "a model may find a larger fix"), never when another link follows.
    advice: str = ""


class Repairer(Protocol):
    @property
    def name(self) -> str: ...

    def repair(self, task: Task) -> Healed | Failed: ...
