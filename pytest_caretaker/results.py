"""The values that cross stages: what failed, what a repairer proposes, what a check finds, and
what a session reports and writes. Every later stage consumes these, so they live here, in a
module that imports nothing of the package (but commits.py): a stage depends on this module and
on the stages below it, never on a sibling for a type. All are frozen; a reason is a sentence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pytest_caretaker.commits import Culprit

# -- what failed ---------------------------------------------------------------------------------

#: How pytest-timeout's message for a test it stopped begins ("Timeout (>1.0s) from ...").
TIMEOUT = "Timeout (>"


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
    #: What failed, in a sentence, when it is not a pytest test (``caretaker run``'s command):
    #: the prompt opens with it instead of "The test … fails."
    subject: str = ""

    @property
    def innermost(self) -> Frame | None:
        return self.frames[-1] if self.frames else None

    @property
    def timed_out(self) -> bool:
        """Whether pytest-timeout stopped the case (its signal method raises where the code
        was): it hung, and its duration was the limit's."""
        return self.exc_type == "Failed" and self.message.lstrip().startswith(TIMEOUT)


@dataclass(frozen=True)
class Executed:
    """What one case ran: project functions ((path, first line), call order), lines, programs
    it started (no trace sees their code), and ((function), (class's path, qualname)) pairs."""

    functions: tuple[tuple[str, int], ...] = ()
    lines: Mapping[str, frozenset[int]] = field(default_factory=dict)
    spawned: tuple[str, ...] = ()
    classes: tuple[tuple[tuple[str, int], tuple[str, str]], ...] = ()


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
    #: How the reply was read into these edits, when there was a choice: which of several
    #: definitions was taken, what was left out and why (for the transcript).
    note: str = ""
    #: The file changes the edits made when they were proved before (repair/proved.py): taken
    #: as they are while every file reads as their ``before`` (applying again could differ).
    changes: tuple[FileChange, ...] = ()


@dataclass(frozen=True)
class Unparsed:
    reason: str
    whole: bool = False  # the whole reply is refused (it leaves open where an edit goes)


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
    #: What passed in the run (the other cases of a problem a fix heals too), and its time;
    #: what the reader of an accepted fix must know of its proof (a test that needed more time).
    passed: frozenset[str] = frozenset()
    seconds: float = 0.0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Doubt:
    """Why a fix that passes its tests is UNSURE (in the patch, never committed unreviewed): the
    tests cannot tell it from another fix, or what it does beyond them silences the symptom."""

    reason: str  # one line: why the tests do not decide
    call: str = ""  # the input that shows it, as a call: ``age(date(1990, 6, 1), …)``
    outcome: str = ""  # what this fix does on call ("returns 34", "raises IndexError")
    other: str = ""  # what the other fix (or the original, for a lone fix) does on call
    alternative: str = ""  # the other fix, as a diff (empty for a lone fix)
    test: str = ""  # a pytest test that pins call, ready to paste


@dataclass(frozen=True)
class Candidate:
    """A proved fix: its edits, the file changes they make, and what was said about it."""

    edits: tuple[Edit, ...]
    changes: tuple[FileChange, ...]
    explanation: str = ""
    notices: tuple[str, ...] = ()  # allowed judgement calls on tests, shown prominently
    #: What passed in the check that proved it (its cases and regression set).
    passed: frozenset[str] = frozenset()
    #: The search that found it, for ``pytest -v`` (the built-in repairer's): the first
    #: candidates it tried that failed, and the other fixes it weighed it against.
    tried: tuple[str, ...] = ()
    runner_ups: tuple[str, ...] = ()
    #: The commits a partial revert undoes part of (full ids): its commit names each in a
    #: ``Reverts-part-of`` trailer.
    reverts: tuple[str, ...] = ()
    doubt: Doubt | None = None  # set: the fix is UNSURE


@dataclass(frozen=True)
class Accepted:
    """A proposal that passed the guards and the check."""

    candidate: Candidate
    verdict: Verdict


@dataclass(frozen=True)
class Rejected:
    """Why a proposal is no fix; proposal is None when nothing parsed into one."""

    reason: str
    detail: str = ""  # the evidence, sent back to the model
    proposal: Proposal | None = None


# -- what a repair cost, and what it came to -----------------------------------------------------


@dataclass(frozen=True)
class Spend:
    """What a repair cost. A model's rounds and the built-in repairer's candidates are counted
    apart: they are different things, and the report words each its own way."""

    rounds: int = 0  # model attempts answered (requests to see code are not attempts)
    candidates: int = 0  # built-in candidate edits tried
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # US dollars
    seconds: float = 0.0
    #: What a model asked to see, each with what it got: "Stack.push (shown)" (llm/show.py).
    asked: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


#: How a result came about: a repair, a remembered fix (verified again), another case's fix.
Via = Literal["repair", "cache", "shared"]
#: What a case came to: a fix proved beyond its failing tests, an UNSURE one, or none.
Outcome = Literal["healed", "unsure", "not healed"]


@dataclass(frozen=True)
class HealResult:
    """The outcome for one failing case: healed by a candidate, or not healed with a reason."""

    nodeid: str
    candidate: Candidate | None = None
    reason: str = ""  # why not healed
    spend: Spend = field(default_factory=Spend)
    #: The model, or "builtin", whose fix it is (for a remembered fix: the one that first found
    #: it); for a result not healed, the last one asked.
    repairer: str = ""
    via: Via = "repair"
    shared_with: str = ""  # with via "shared": the case whose repair found the fix
    #: Repairers of the chain that came before and failed, each as "name: reason".
    fallbacks: tuple[str, ...] = ()
    culprit: Culprit | None = None  # the commit that broke it, when its history tells

    @property
    def healed(self) -> bool:  # a fix was found: a plain HEALED, or an UNSURE one
        return self.candidate is not None

    @property
    def unsure(self) -> bool:
        return self.outcome == "unsure"

    @property
    def outcome(self) -> Outcome:
        if self.candidate is None:
            return "not healed"
        return "unsure" if self.candidate.doubt is not None else "healed"

    @property
    def edits(self) -> tuple[Edit, ...]:
        return self.candidate.edits if self.candidate is not None else ()

    @property
    def changes(self) -> tuple[FileChange, ...]:
        return self.candidate.changes if self.candidate is not None else ()

    @property
    def explanation(self) -> str:
        return self.candidate.explanation if self.candidate is not None else ""

    @property
    def notices(self) -> tuple[str, ...]:
        return self.candidate.notices if self.candidate is not None else ()


# -- what is selected and written ------------------------------------------------------------


@dataclass(frozen=True)
class Fix:
    """One verified change of the project, and the results (cases) it heals."""

    results: tuple[HealResult, ...]

    @property
    def first(self) -> HealResult:
        return self.results[0]

    @property
    def unsure(self) -> bool:
        return self.first.unsure

    @property
    def nodeids(self) -> tuple[str, ...]:
        return tuple(result.nodeid for result in self.results)

    @property
    def changes(self) -> tuple[FileChange, ...]:
        return self.first.changes

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(change.path for change in self.changes)


State = Literal["committed", "written", "skipped", "declined"]


@dataclass(frozen=True)
class Written:
    fix: Fix
    state: State
    detail: str = ""  # one line: what happened, for the summary
    commit: str = ""  # the commit's id when committed
    #: Why a fix written was not committed, in a few words (the report's: "your edits in that
    #: file", "--heal-no-commit"); "" when it was, or was not written.
    uncommitted: str = ""
