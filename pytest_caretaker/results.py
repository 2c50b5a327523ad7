"""The values that cross stages: what failed, what a repairer proposes, what a check finds, and
what a session reports and writes.

Every later stage consumes these, so they live here, in a module that imports nothing of the
package: a stage depends on this module and on the stages below it, never on a sibling for a
type. All are frozen; a reason is a sentence a user (or a model on its next attempt) can act on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

# -- what failed ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """One traceback entry inside the project."""

    path: str  # relative to the root, with forward slashes
    lineno: int  # 1-based
    name: str  # the code object's name; localize maps it to a qualified name
    locals: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Failure:
    """One failing case, as recorded: a pytest test today (its id is the node id)."""

    nodeid: str
    when: str  # "setup" or "call"
    path: str  # the test's file, relative to the root
    exc_type: str
    message: str
    longrepr: str
    frames: tuple[Frame, ...]  # outermost first, project frames only
    output: str = ""

    @property
    def innermost(self) -> Frame | None:
        return self.frames[-1] if self.frames else None


@dataclass(frozen=True)
class Executed:
    """What one case ran of the project: functions as (path, first line), in call order; lines."""

    functions: tuple[tuple[str, int], ...] = ()
    lines: Mapping[str, frozenset[int]] = field(default_factory=dict)


# -- what a repairer proposes ----------------------------------------------------------------

EditKind = Literal["replace", "helper", "import"]


@dataclass(frozen=True)
class Edit:
    kind: EditKind
    path: str
    qualname: str  # the function replaced or added; the statement itself for an import
    source: str  # dedented source of the new definition or import statement

    @property
    def ref(self) -> str:
        return f"{self.path}::{self.qualname}"


@dataclass(frozen=True)
class Proposal:
    edits: tuple[Edit, ...]
    explanation: str


@dataclass(frozen=True)
class Unparsed:
    reason: str


@dataclass(frozen=True)
class FileChange:
    """One file's bytes before and after a change (what applying edits, merging fixes or writing
    them produces)."""

    path: str
    before: bytes
    after: bytes


@dataclass(frozen=True)
class NotApplied:
    reason: str


# -- what a check finds ----------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str = ""  # one line, for the summary
    detail: str = ""  # the evidence, for the model's next attempt
    #: The cases and regression tests that passed in the run (for sharing a fix among the cases
    #: of one problem), and how long the run took.
    passed: frozenset[str] = frozenset()
    seconds: float = 0.0


# -- what a repair came to ------------------------------------------------------------------


@dataclass(frozen=True)
class HealResult:
    nodeid: str
    healed: bool
    reason: str = ""
    explanation: str = ""
    edits: tuple[Edit, ...] = ()
    applied: tuple[FileChange, ...] = ()
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    model: str = ""
    from_cache: bool = False  # a remembered fix of an earlier run, verified again
    notices: tuple[str, ...] = ()  # allowed judgement calls on tests, shown prominently
    shared_with: str = ""  # healed by the fix found for this test (one root cause)
    #: Models of the chain that came before and failed, each as "model: reason".
    fallbacks: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# -- what is selected and written ------------------------------------------------------------


@dataclass(frozen=True)
class Fix:
    """One verified change of the project, and the results (cases) it heals."""

    results: tuple[HealResult, ...]

    @property
    def first(self) -> HealResult:
        return self.results[0]

    @property
    def nodeids(self) -> tuple[str, ...]:
        return tuple(result.nodeid for result in self.results)

    @property
    def changes(self) -> tuple[FileChange, ...]:
        return self.first.applied

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(change.path for change in self.changes)


@dataclass(frozen=True)
class Dropped:
    fix: Fix
    reason: str  # one line: why this fix is not in the patch and not written


State = Literal["committed", "written", "skipped", "declined"]


@dataclass(frozen=True)
class Written:
    fix: Fix
    state: State
    detail: str = ""  # one line: what happened, for the summary
    commit: str = ""  # the commit's id when committed
