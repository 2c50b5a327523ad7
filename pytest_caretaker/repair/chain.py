"""Repair one failure: localize, then converse with a model, each reply going through
parse -> guard -> apply (in memory) -> verify, and each rejection going back to the model.
"""

from __future__ import annotations

import os
import textwrap
import threading
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_caretaker.apply.rewrite import apply_edits
from pytest_caretaker.guard import scope as guard
from pytest_caretaker.guard import weakening as weaken
from pytest_caretaker.llm import client as llm
from pytest_caretaker.llm import context, conversation, models, prompts
from pytest_caretaker.llm.parse import parse_reply
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import Suspect, localize
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.repair.memory import Memory
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import (
    Edit,
    Failure,
    FileChange,
    HealResult,
    NotApplied,
    Proposal,
    Unparsed,
)
from pytest_caretaker.settings import BUILTIN, Settings
from pytest_caretaker.verify.runner import Runner, RunResult, judge

if TYPE_CHECKING:
    from pytest_caretaker.builtin.repairer import Builtin


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class _Tally:
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    model: str = ""

    def add(self, reply: llm.Reply) -> None:
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        self.cost += reply.cost
        self.model = reply.model

    def absorb(self, result: HealResult) -> None:
        self.prompt_tokens += result.prompt_tokens
        self.completion_tokens += result.completion_tokens
        self.cost += result.cost


@dataclass(frozen=True)
class _Attempt:
    ok: bool
    reason: str
    detail: str = ""
    proposal: Proposal | None = None
    applied: tuple[FileChange, ...] = ()
    notices: tuple[str, ...] = ()


@dataclass
class Repairer:
    settings: Settings
    runner: Runner
    sources: ProjectFiles
    tests: TestFiles
    root: Path
    builtin: Builtin | None = None  # the model-free repairer, when it is in the chain
    memory: Memory = field(default_factory=lambda: Memory(None))
    transcripts: dict[str, Transcript] = field(default_factory=dict)
    redactor: Redactor = field(default_factory=lambda: Redactor(os.environ))
    spent: float = 0.0  # US dollars this session's model calls cost, for --heal-budget
    #: Repairs run in threads: the shared tally, and the built-in repairer's single trial server.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _builtin_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def editable(self, candidate: Suspect) -> bool:
        return self.editable_path(candidate.path)

    def editable_path(self, path: str) -> bool:
        scope = self.settings.scope
        return scope == "any" or (scope == "tests") == (path in self.tests)

    def heal(self, failure: Failure, baseline: RunResult, regression: Sequence[str]) -> HealResult:
        started = time.monotonic()
        self.transcripts[failure.nodeid] = Transcript(failure.nodeid)
        try:
            result = self._heal(failure, baseline, regression)
        except Exception as error:  # one failure's problem must not stop the others
            where = traceback.extract_tb(error.__traceback__)[-1:]
            at = f" at {Path(where[0].filename).name}:{where[0].lineno}" if where else ""
            reason = f"caretaker failed on this test: {error!r}{at}; please report it"
            self.transcripts[failure.nodeid].add("Internal error", reason)
            result = HealResult(failure.nodeid, False, reason)
        if result.healed and not result.from_cache:
            self.memory.remember(
                failure, result.edits, result.explanation, result.model, self.sources
            )
        return replace(result, seconds=time.monotonic() - started)

    def _heal(self, failure: Failure, baseline: RunResult, regression: Sequence[str]) -> HealResult:
        nodeid = failure.nodeid
        outcome = baseline.outcomes.get(nodeid)
        if outcome is not None and outcome.outcome == "passed":
            return HealResult(
                nodeid, False, "the test passes when rerun alone (flaky or order-dependent)"
            )
        candidates = localize(
            failure, [nodeid], baseline.executed, regression, self.sources, self.tests
        )
        if not any(self.editable(c) for c in candidates):
            return HealResult(nodeid, False, self._nothing_editable())
        log = self.transcripts[nodeid]
        for remembered in self.memory.recall(failure, self.sources):
            proposal = Proposal(remembered.edits, remembered.explanation)
            attempt = self._check(proposal, failure, regression)
            log.add(
                f"Remembered fix (first found by {remembered.model})",
                f"verdict: {'accepted' if attempt.ok else attempt.reason}",
                code="\n".join(edit.source for edit in remembered.edits),
                language="python",
            )
            if attempt.ok:
                result = self._result(failure, _Tally(model=remembered.model), True, "", attempt)
                return replace(result, from_cache=True)
        tally = _Tally()
        result = HealResult(nodeid, False, "no model to ask")
        failed: list[str] = []  # "model: reason" of each link of the chain that failed
        for model in self.settings.models:
            if model == BUILTIN:
                if self.builtin is None:
                    continue
                with self._builtin_lock:
                    result = self.builtin.heal(nodeid, baseline, regression)
                log.add(
                    "Built-in repairer",
                    f"{result.attempts:,} candidate edits tried; "
                    + (result.explanation if result.healed else result.reason),
                )
                if result.healed:
                    break
                failed.append(_short(f"{BUILTIN}: {result.reason}"))
                continue  # what it cannot repair goes to the next model of the chain
            result, model_failed = self._converse(model, failure, candidates, regression)
            tally.absorb(result)
            if not model_failed:
                break  # a model whose fixes were checked decides; the next is for its failures
            failed.append(_short(f"{model}: {result.reason}"))
        else:
            if len(failed) > 1:  # every link failed: the reason names each model and why
                result = replace(result, reason="; then ".join(failed))
        fallbacks = tuple(failed) if result.healed else ()
        return replace(
            result,
            prompt_tokens=tally.prompt_tokens,
            completion_tokens=tally.completion_tokens,
            cost=tally.cost,
            fallbacks=fallbacks,
        )

    def _nothing_editable(self) -> str:
        if self.settings.scope == "code":
            return (
                "the failure is in test code (no code under test ran in it); "
                f"{guard.SCOPE_HINT['code']}"
            )
        if self.settings.scope == "tests":
            return f"no test code ran in the failing test; {guard.SCOPE_HINT['tests']}"
        return "no project code ran in the failing test"

    def _converse(
        self,
        model: str,
        failure: Failure,
        candidates: Sequence[Suspect],
        regression: Sequence[str],
    ) -> tuple[HealResult, bool]:
        """The result of one model's conversation, and whether the model failed: an error, or
        no reply that parsed into a fix in all its attempts (then the next model is asked)."""
        api_base = models.api_base_for(model, self.settings.api_base, os.environ)
        described = models.info(model, api_base)
        tools = described.tools is True
        room = conversation.room_for(described.context)
        tally = _Tally(model=model)
        log = self.transcripts[failure.nodeid]
        material = context.build(
            failure, candidates, self.sources, self.editable, min(context.DEFAULT_BUDGET, room)
        )
        try:
            messages: list[dict[str, Any]] = [
                {
                    "role": "system",
                    "content": self._render("system", tools, scope=self.settings.scope),
                },
                {"role": "user", "content": self._render("user", tools, **material.as_vars())},
            ]
        except prompts.PromptError as error:
            return self._result(failure, tally, False, str(error)), False
        attempt = _Attempt(False, "no attempt was made")
        parsed_any = False
        window = f"{described.context:,} tokens" if described.context else "unknown"
        log.add(
            f"Model {model}",
            f"strategy: {'tools' if tools else 'text'} templates · context window: {window}"
            + (f" · at {api_base}" if api_base else ""),
        )
        log.prompt(self.redactor.messages(messages))
        for number in range(1, self.settings.attempts + 1):
            stop = self._limit(tally)
            if stop is not None:
                log.add(f"Attempt {number}: not asked", stop)
                if number == 1:
                    return self._result(failure, tally, False, f"not attempted: {stop}"), False
                done = f"{number - 1} attempt{'s' if number > 2 else ''}"
                return self._result(failure, tally, False, f"stopped after {done}: {stop}"), False
            try:
                # Redacted here, at the one place a prompt leaves the process: the context, the
                # verification output fed back, and everything else the conversation holds.
                sent = self.redactor.messages(conversation.fit(messages, room))
                reply = llm.ask(model, sent, api_base, tools, self.settings.model_timeout)
            except llm.ModelError as error:
                log.add(f"Attempt {number}: {model}", f"model error: {error}")
                return self._result(failure, tally, False, f"model error: {error}"), True
            with self._lock:
                self.spent += reply.cost
            tally.attempts = number
            tally.add(reply)
            if conversation.echoes(reply.text, str(sent[1].get("content") or "")):
                attempt = _Attempt(
                    False,
                    "the reply repeats the prompt instead of proposing a fix; reply with only "
                    "the corrected functions",
                )
            else:
                attempt = self._attempt(reply, failure, candidates, regression)
            parsed_any = parsed_any or attempt.proposal is not None
            self._log_attempt(log, number, model, reply, attempt)
            if attempt.ok:
                return self._result(failure, tally, True, "", attempt), False
            messages.append(reply.as_message())
            try:
                feedback = self._render(
                    "retry",
                    tools,
                    reason=attempt.reason,
                    detail=attempt.detail[-conversation.MAX_FEEDBACK :],
                    attempt=number,
                )
            except prompts.PromptError as error:
                return self._result(failure, tally, False, str(error)), False
            if reply.tool_call_ids:
                messages.extend(
                    {"role": "tool", "tool_call_id": call_id, "content": feedback}
                    for call_id in reply.tool_call_ids
                )
            else:
                messages.append({"role": "user", "content": feedback})
        # Replies that never parsed into a fix: this model cannot work in the format; the next
        # model of the chain may.
        return self._result(failure, tally, False, attempt.reason), not parsed_any

    def _render(self, name: str, tools: bool, **variables: object) -> str:
        return prompts.render(name, tools, self.settings.prompt_dir, **variables)

    @staticmethod
    def _log_attempt(
        log: Transcript, number: int, model: str, reply: llm.Reply, attempt: _Attempt
    ) -> None:
        log.add(
            f"Attempt {number}: reply from {reply.model or model}",
            f"{reply.prompt_tokens:,} prompt + {reply.completion_tokens:,} completion tokens"
            f" · ${reply.cost:.4f}",
            code="\n\n".join([reply.text, *reply.tool_arguments]).strip(),
        )
        if attempt.proposal is not None:
            log.add(
                f"Attempt {number}: parsed edits",
                code="\n\n".join(f"# {e.kind} {e.ref}\n{e.source}" for e in attempt.proposal.edits),
                language="python",
            )
        log.add(
            f"Attempt {number}: verdict",
            "accepted: the failing test passes and its neighbours still pass"
            if attempt.ok
            else f"rejected: {attempt.reason}",
            code=attempt.detail or None,
        )

    def _limit(self, tally: _Tally) -> str | None:
        """Why no further request may be made (budget spent, token cap reached), or None."""
        budget = self.settings.budget
        if budget is not None and self.spent >= budget:
            return (
                f"the --heal-budget of ${budget:.2f} is spent (${self.spent:.4f} used); "
                "raise it to heal the rest"
            )
        used, cap = tally.prompt_tokens + tally.completion_tokens, self.settings.max_tokens
        if used >= cap:
            return (
                f"this failure used {used:,} tokens, the cap is {cap:,} "
                "(raise it with --heal-max-tokens)"
            )
        return None

    def _attempt(
        self,
        reply: llm.Reply,
        failure: Failure,
        candidates: Sequence[Suspect],
        regression: Sequence[str],
    ) -> _Attempt:
        if reply.truncated:
            return _Attempt(
                False,
                "the reply was cut off at the model's output limit; reply with only the "
                "changed functions",
            )
        parsed = parse_reply(
            reply.text, reply.tool_arguments, candidates, self.editable, self.sources.get
        )
        if isinstance(parsed, Unparsed):
            return _Attempt(False, f"model output did not parse: {parsed.reason}")
        # A literal the prompt showed redacted, and the model kept, is the user's own value.
        edits = tuple(replace(e, source=self.redactor.restore(e.source)) for e in parsed.edits)
        return self._check(replace(parsed, edits=edits), failure, regression)

    def _check(self, parsed: Proposal, failure: Failure, regression: Sequence[str]) -> _Attempt:
        """Guard, apply in memory and verify a proposal."""
        refused = guard.check(parsed.edits, self.settings.scope, self.root, self.tests)
        if refused is not None:
            return _Attempt(False, f"fix refused: {refused}", proposal=parsed)
        judged = weaken.review(parsed.edits, self.tests, self._original)
        if judged.refused is not None:
            return _Attempt(False, f"fix refused: {judged.refused}", proposal=parsed)
        applied: list[FileChange] = []
        for path in dict.fromkeys(edit.path for edit in parsed.edits):
            source = self.sources.get(path)
            if source is None:
                return _Attempt(False, f"fix refused: {path} cannot be read", proposal=parsed)
            done = apply_edits(path, source.data, [e for e in parsed.edits if e.path == path])
            if isinstance(done, NotApplied):
                return _Attempt(False, f"fix does not apply: {done.reason}", proposal=parsed)
            applied.append(done)
        if all(change.after == change.before for change in applied):
            return _Attempt(
                False,
                "fix changes nothing: the code it proposes is the code as it is",
                proposal=parsed,
            )
        run = self.runner.run([failure.nodeid, *regression], {a.path: a.after for a in applied})
        verdict = judge(run, [failure.nodeid], regression)
        if not verdict.ok:
            return _Attempt(False, verdict.reason, verdict.detail, parsed, tuple(applied))
        return _Attempt(True, "", proposal=parsed, applied=tuple(applied), notices=judged.notices)

    def _original(self, edit: Edit) -> str | None:
        """The current source of the function an edit replaces (dedented), if it exists."""
        source = self.sources.get(edit.path)
        definition = source.find(edit.qualname) if source is not None else None
        if source is None or definition is None:
            return None
        return textwrap.dedent(source.source_of(definition))

    def _result(
        self,
        failure: Failure,
        tally: _Tally,
        healed: bool,
        reason: str,
        attempt: _Attempt | None = None,
    ) -> HealResult:
        proposal = attempt.proposal if attempt is not None else None
        return HealResult(
            nodeid=failure.nodeid,
            healed=healed,
            reason=reason,
            explanation=proposal.explanation if proposal is not None else "",
            edits=proposal.edits if proposal is not None else (),
            applied=attempt.applied if attempt is not None else (),
            notices=attempt.notices if attempt is not None else (),
            attempts=tally.attempts,
            prompt_tokens=tally.prompt_tokens,
            completion_tokens=tally.completion_tokens,
            cost=tally.cost,
            model=tally.model,
        )
