"""Prove a proposal: the guards first (scope, weakening), then apply it in memory, then the
problem's Check. Every repairer's proposals come through here, so a rule that refuses a fix holds
for all of them, and every refusal is a sentence the model can act on in its next attempt.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from pytest_caretaker.apply.rewrite import apply_edits
from pytest_caretaker.guard import weakening
from pytest_caretaker.guard.failing import failing
from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.problem import Check, Problem
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.results import (
    Accepted,
    Candidate,
    Edit,
    FileChange,
    NotApplied,
    Proposal,
    Rejected,
)


@dataclass(frozen=True)
class Prover:
    editable: Editable
    files: ProjectFiles
    check: Check

    def __call__(self, problem: Problem, proposal: Proposal) -> Accepted | Rejected:
        refused = self.editable.refusal(proposal.edits)
        if refused is not None:
            return Rejected(f"fix refused: {refused}", proposal=proposal)
        judged = weakening.review(
            proposal.edits,
            self.editable.tests,
            self._original,
            module=self._module,
            failing=failing(problem, self.files),
        )
        if judged.refused is not None:
            return Rejected(f"fix refused: {judged.refused}", proposal=proposal)
        changes = self._apply(proposal)
        if isinstance(changes, Rejected):
            return changes
        if all(change.after == change.before for change in changes):
            return Rejected(
                "fix changes nothing: the code it proposes is the code as it is", proposal=proposal
            )
        verdict = self.check(problem, {change.path: change.after for change in changes})
        if not verdict.ok:
            return Rejected(verdict.reason, verdict.detail, proposal)
        notices = (*judged.notices, *verdict.notes)  # a test that passed only with more time
        candidate = Candidate(
            proposal.edits, changes, proposal.explanation, notices, verdict.passed
        )
        return Accepted(candidate, verdict)

    def _apply(self, proposal: Proposal) -> tuple[FileChange, ...] | Rejected:
        # A fix proved before: its changes as proved, of the files its (guarded) edits name.
        paths = {edit.path for edit in proposal.edits}
        if {change.path for change in proposal.changes} == paths and all(
            (source := self.files.get(change.path)) is not None and source.data == change.before
            for change in proposal.changes
        ):
            return proposal.changes
        changes: list[FileChange] = []
        for path in dict.fromkeys(edit.path for edit in proposal.edits):
            source = self.files.get(path)
            if source is None:
                return Rejected(f"fix refused: {path} cannot be read", proposal=proposal)
            done = apply_edits(path, source.data, [e for e in proposal.edits if e.path == path])
            if isinstance(done, NotApplied):
                return Rejected(f"fix does not apply: {done.reason}", proposal=proposal)
            changes.append(done)
        return tuple(changes)

    def _module(self, path: str) -> str | None:
        """The text of a project file as it is (its imports tell what a fix may import)."""
        source = self.files.get(path)
        return source.text if source is not None else None

    def _original(self, edit: Edit) -> str | None:
        """The current source of the function (or the class, given whole) an edit replaces,
        dedented, if it exists."""
        source = self.files.get(edit.path)
        definition = source.find(edit.qualname) if source is not None else None
        if source is None:
            return None
        if definition is None:
            whole = source.class_source(edit.qualname)
            return textwrap.dedent(whole) if whole is not None else None
        return textwrap.dedent(source.source_of(definition))
