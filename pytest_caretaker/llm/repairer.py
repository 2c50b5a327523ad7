"""One model as a repairer: a conversation of up to ``--heal-attempts`` rounds, each reply parsed
and proved, each rejection sent back with its reason, within the limits the engine sets
(``Task.limits``: the session's dollar budget, the token cap). Before each fix the model may ask
to see code the prompt did not show, in up to MAX_ROUNDS rounds of their own (asking.py, show.py).

The redaction point is here, at the one place a prompt leaves the process: the context, the
verification output fed back, and everything else the conversation holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.llm import asking, client, context, conversation, models, prompts, transcribe
from pytest_caretaker.llm.rounds import Rounds
from pytest_caretaker.llm.show import Index
from pytest_caretaker.llm.tools import MAX_ROUNDS
from pytest_caretaker.problem import Failed, Healed, Task
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import Accepted, Rejected, Unparsed
from pytest_caretaker.settings import Settings

ECHO = (
    "the reply repeats the prompt instead of proposing a fix; reply with only the corrected "
    "functions"
)
TRUNCATED = (
    "the reply was cut off at the model's output limit; reply with only the changed functions"
)
ASKED_ON = (
    f"the reply asks to see more code after {MAX_ROUNDS} rounds of showing it; propose a fix "
    "with what was shown"
)


@dataclass(frozen=True)
class ModelRepairer:
    name: str  # the litellm model
    settings: Settings
    files: ProjectFiles
    editable: Editable
    redactor: Redactor
    api_base: str | None = None
    #: How a request is made and what is known of the model: litellm and its model map, or what
    #: a local server says; a test of the conversation itself gives its own.
    ask: Callable[..., client.Reply] = client.ask
    describe: Callable[[str, str | None], models.Info] = models.info

    def repair(self, task: Task) -> Healed | Failed:
        lead = task.problem.lead
        shown = [lead.path, *(f.path for f in lead.frames), *(s.path for s in task.suspects)]
        self.redactor.learn_code(self.files.root, shown)  # the literals of what the prompt shows
        described = self.describe(self.name, self.api_base)
        tools = described.tools is True
        room = conversation.room_for(described.context)
        try:
            system = self._render("system", tools, scope=self.settings.scope)
            material = context.build(
                task.problem.lead,
                task.suspects,
                self.files,
                lambda suspect: self.editable.path(suspect.path),
                min(context.DEFAULT_BUDGET, room - len(system)),  # the system prompt is sent too
            )
            # What changed in the suspects since the test last passed, with the commits' subjects.
            changed = task.changes.shown(task.suspects, self.files) if task.changes else ""
            user = self._render("user", tools, **material.as_vars()) + changed
        except prompts.PromptError as error:
            return Failed(str(error), decisive=True)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        window = f"{described.context:,} tokens" if described.context else "unknown"
        task.log.add(
            f"Model {self.name}",
            f"strategy: {'tools' if tools else 'text'} templates · context window: {window}"
            + (f" · at {self.api_base}" if self.api_base else ""),
        )
        task.log.prompt(self.redactor.messages(messages))
        index = Index(self.files, self.redactor, shown)  # what the model may ask to see
        last = {f.qualname.rpartition(".")[2] for f in material.functions}
        names = {n for f in material.functions for n in (f.qualname, f.ref)} | last
        prompted = frozenset((f.path, f.qualname) for f in material.functions)
        rounds = _Conversation(self, task, tools, room, messages, index, names)
        return replace(rounds, prompted=prompted).run()

    def _render(self, name: str, tools: bool, **variables: object) -> str:
        return prompts.render(name, tools, self.settings.prompt_dir, **variables)


@dataclass
class _Conversation(Rounds):
    """The rounds of one model's conversation about one problem: each reply judged, each
    rejection sent back."""

    #: The best fix so far that heals some but not all cases of the problem: kept while the
    #: model is asked for one that heals them all, returned if it finds none.
    partial: Healed | None = None

    def run(self) -> Healed | Failed:
        repairer, log = self.repairer, self.task.log
        reason, parsed_any = "no attempt was made", False
        for number in range(1, repairer.settings.attempts + 1):
            reply = self._asking(number)
            if not isinstance(reply, client.Reply):
                return reply
            decided: Accepted | Rejected
            if conversation.echoes(reply.text, self.prompt):
                decided = Rejected(ECHO)
            else:
                decided = self._attempt(reply, number)
            parsed_any = parsed_any or transcribe.edits(decided) is not None
            transcribe.attempt(log, number, repairer.name, reply, decided)
            if isinstance(decided, Accepted):
                healed = self._partial(
                    Healed(decided.candidate, self.spend, reply.model, decided.verdict)
                )
                if isinstance(healed, Healed):
                    return healed
                decided = healed  # some cases only: asked again, with this kept
            reason = decided.reason
            feedback = self._feedback(reply, decided, number)
            if isinstance(feedback, Failed):
                return feedback
        if self.partial is not None:
            return replace(self.partial, spend=self.spend)
        # Replies that never parsed into a fix: this model cannot work in the format; the next
        # model of the chain may.
        return Failed(reason, self.spend, decisive=parsed_any)

    def _partial(self, healed: Healed) -> Healed | Rejected:
        """healed when it heals every case of the problem; else kept (if it heals more than the
        one kept) and turned into the reason to ask again."""
        cases = self.task.problem.ids  # the lead passes: its verdict accepted the fix
        missing = [nodeid for nodeid in cases[1:] if nodeid not in healed.verdict.passed]
        if not missing:
            return healed
        count = len(cases) - len(missing)
        if self.partial is None or count > self._heals(self.partial):
            note = (
                f" It heals {count} of the {len(cases)} failing cases of this problem; the "
                "others are repaired on their own."
            )
            candidate = healed.candidate
            self.partial = replace(
                healed, candidate=replace(candidate, explanation=candidate.explanation + note)
            )
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        return Rejected(
            f"the fix heals {count} of the {len(cases)} failing cases of this problem (one root "
            f"cause), not all: {shown} still fail; find the fix that heals them all"
        )

    def _attempt(self, reply: client.Reply, number: int) -> Accepted | Rejected:
        if reply.truncated:
            return Rejected(TRUNCATED)
        repairer = self.repairer
        readings = self._read(reply)
        if isinstance(readings, Unparsed):
            if asking.explicit(reply):  # after the last round of showing code
                return Rejected(ASKED_ON)
            return Rejected(f"model output did not parse: {readings.reason}")
        first: Rejected | None = None
        best: Accepted | None = None  # of readings that heal some cases of the problem only
        for index, proposal in enumerate(readings, 1):
            # A literal the prompt showed redacted, and the model kept, is the user's own value.
            edits = tuple(
                replace(edit, source=repairer.redactor.restore(edit.source))
                for edit in proposal.edits
            )
            decided = self.task.prove(replace(proposal, edits=edits))
            if len(readings) > 1 or proposal.note:  # say what was taken of the reply
                transcribe.reading(self.task.log, number, index, len(readings), proposal, decided)
            if isinstance(decided, Rejected):
                first = first or decided
                continue
            healed = self._heals(decided)
            if healed == len(self.task.problem.ids):
                return decided
            if best is None or healed > self._heals(best):
                best = decided
        if best is not None:
            return best
        assert first is not None  # read_reply gives one reading at least
        return first

    def _heals(self, proved: Accepted | Healed) -> int:
        """How many cases of the problem a proved fix heals (the lead always)."""
        cases = self.task.problem.ids
        return 1 + sum(1 for nodeid in cases[1:] if nodeid in proved.verdict.passed)

    def _feedback(self, reply: client.Reply, rejected: Rejected, number: int) -> Failed | None:
        """Tell the model why its fix was rejected, in the conversation's next round."""
        self.messages.append(reply.as_message())
        try:
            detail = rejected.detail[-conversation.MAX_FEEDBACK :]
            feedback = self.repairer._render(
                "retry",
                self.tools,
                reason=rejected.reason,
                detail=detail,
                attempt=number,
                fence=context.fence_for(detail),
            )
        except prompts.PromptError as error:
            return Failed(str(error), self.spend, decisive=True)
        if reply.tool_call_ids or reply.show_call_ids:  # each call gets its answer
            self.messages.extend(
                {"role": "tool", "tool_call_id": call_id, "content": feedback}
                for call_id in reply.tool_call_ids or reply.show_call_ids
            )
            self.messages.extend(
                {"role": "tool", "tool_call_id": call_id, "content": asking.NOT_SHOWN}
                for call_id in (reply.show_call_ids if reply.tool_call_ids else ())
            )
        else:
            self.messages.append({"role": "user", "content": feedback})
        return None
