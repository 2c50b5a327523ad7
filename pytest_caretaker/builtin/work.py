"""Work: what the built-in repairer's budget counts, so that a busy machine gives the same verdicts.

A budget of wall seconds makes the verdict depend on the load: at load 5-13 on two cores, 20 s
ran out after a median of two or three candidates where a quiet machine tries 79 to 135 a second,
and bugs healed on a laptop were not healed in CI. So ``--heal-builtin-budget S`` is the *work*
that S seconds of search do on a quiet machine, counted, not clocked:

- candidate edits tried, at most ``S * CANDIDATES_PER_SECOND``; each candidate generated counts
  ``GENERATED_WEIGHT`` of one tried (a 700-line function has tens of thousands);
- the CPU seconds of their trials (the forked children, as the kernel counts them), at most
  ``S * CPU_PER_SECOND``: a project whose tests are slow tries fewer candidates, as it would on
  a quiet machine. A trial that ran out of time is charged its whole limit: a busy machine's
  hung candidate spins for less CPU in the same limit.

The rates are a quiet two-core machine's (measured on the bug collection, examples/bugs: see
docs/pages/builtin.md). A busy machine does the same work, later; the seconds stay a ceiling on
the wall clock, ``WALL_FACTOR`` times as many (at least ``MIN_WALL``), so that no machine waits
forever, and the session's healing budget (``--heal-session-budget``) stays the user's ceiling
over all problems.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pytest_caretaker.verify.trials import Trial

#: Candidate edits a quiet machine tries a second (the collection: 79 to 135 on two cores).
CANDIDATES_PER_SECOND = 100.0
#: CPU seconds of trials a quiet machine runs a second: four cores' worth (a trial of a small test
#: takes 20 to 25 ms of CPU, so the count of candidates decides for all but slow tests).
CPU_PER_SECOND = 4.0
#: What generating one candidate costs, as a share of trying one.
GENERATED_WEIGHT = 0.01
#: The wall-clock ceiling: this many times the budget's seconds, and at least MIN_WALL.
WALL_FACTOR = 10.0
MIN_WALL = 120.0


@dataclass
class Work:
    """One problem's search: the work done, against its budget, and the wall-clock ceiling."""

    seconds: float  # the budget: what a quiet machine searches in this many seconds
    #: The monotonic time the wall-clock ceiling falls on; session: it is the session's
    #: healing budget's, which ends first.
    deadline: float
    session: bool = False
    started: float = field(default_factory=time.monotonic)
    tried: int = 0
    generated: int = 0
    cpu: float = 0.0  # of the candidates' trials
    #: The work (in a quiet machine's seconds) the search may do: the budget's seconds, lowered
    #: for a while to end a grace (vetting.py).
    limit: float = field(init=False)

    def __post_init__(self) -> None:
        self.limit = self.seconds

    @classmethod
    def of(cls, seconds: float, session_left: float | None) -> Work:
        """The work of a budget of seconds, its ceiling within the session's time left (None:
        no session limit)."""
        now = time.monotonic()
        ceiling = max(MIN_WALL, WALL_FACTOR * seconds)
        if session_left is not None and session_left < ceiling:
            return cls(seconds, now + max(0.0, session_left), session=True, started=now)
        return cls(seconds, now + ceiling, started=now)

    @property
    def ceiling(self) -> float:
        return self.deadline - self.started

    def done(self) -> float:
        """The work done so far, in the seconds a quiet machine takes for it."""
        units = self.tried + self.generated * GENERATED_WEIGHT
        return max(units / CANDIDATES_PER_SECOND, self.cpu / CPU_PER_SECOND)

    def over(self) -> bool:
        """Whether the search must stop: its work is done, or the wall-clock ceiling reached."""
        return self.done() >= self.limit or self.wall_left() <= 0

    def wall_left(self) -> float:
        return self.deadline - time.monotonic()

    def charge(self, trial: Trial | None, limit: float) -> float:
        """Count one candidate tried (its trial, if it had one, run within limit seconds); the
        work it took, in a quiet machine's seconds."""
        cpu = 0.0
        if trial is not None:
            cpu = max(trial.cpu, limit) if "did not finish" in trial.reason else trial.cpu
        self.tried += 1
        self.cpu += cpu
        return 1 / CANDIDATES_PER_SECOND + cpu / CPU_PER_SECOND

    def generating(self) -> bool:
        """Count one candidate generated; whether generation may go on (once it may not, no
        more are counted)."""
        if self.over():
            return False
        self.generated += 1
        return not self.over()

    def spent(self) -> str:
        """Which budget ran out, as the start of a reason (the search's own: not the session's)."""
        if self.done() >= self.seconds:
            return f"the built-in repairer's budget of {self.seconds:g} s ran out"
        return (
            f"the built-in repairer's wall-clock ceiling of {self.ceiling:g} s ran out (the "
            f"machine is busy: its budget of {self.seconds:g} s is the work a quiet machine does "
            "in that time)"
        )

    def which(self) -> str:
        """What the work budget counted when it ran out (empty when it did not)."""
        if self.done() < self.seconds:
            return ""
        count = self.tried + self.generated * GENERATED_WEIGHT
        if count / CANDIDATES_PER_SECOND >= self.cpu / CPU_PER_SECOND:
            most = round(self.seconds * CANDIDATES_PER_SECOND)
            return (
                f" (its work: the {most:,} candidate edits a quiet machine tries in "
                f"{self.seconds:g} s, generating them included)"
            )
        return (
            f" (its work: the {self.seconds * CPU_PER_SECOND:g} CPU seconds of trials a quiet "
            f"machine runs in {self.seconds:g} s)"
        )
