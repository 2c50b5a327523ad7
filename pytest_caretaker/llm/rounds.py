"""Rounds: the requests of one model's conversation about one problem, each made within the
limits the engine sets and its cost counted, and before each attempt the rounds, at most
MAX_ROUNDS, in which the model is shown the code it asked to see (asking.py, show.py). A round of
showing is not an attempt: the attempt is the reply that follows it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.llm import asking, client, conversation, transcribe
from pytest_caretaker.llm.parse import read_reply
from pytest_caretaker.llm.show import MAX_SHOWN, Index
from pytest_caretaker.llm.tools import MAX_ROUNDS
from pytest_caretaker.problem import Failed, Healed, Task
from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import Proposal, Spend, Unparsed
from pytest_caretaker.settings import Settings
from pytest_caretaker.text import plural


class Asker(Protocol):
    """What the rounds use of the model repairer (repairer.ModelRepairer)."""

    @property
    def name(self) -> str: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def files(self) -> ProjectFiles: ...
    @property
    def editable(self) -> Editable: ...
    @property
    def redactor(self) -> Redactor: ...
    @property
    def api_base(self) -> str | None: ...
    @property
    def ask(self) -> Callable[..., client.Reply]: ...
    def _render(self, name: str, tools: bool, **variables: object) -> str: ...


@dataclass
class Rounds:
    """The requests of one model's conversation about one problem, and the rounds of showing
    code before each attempt; repairer.py judges the replies."""

    repairer: Asker
    task: Task
    tools: bool
    room: int
    messages: list[dict[str, Any]]
    index: Index
    seen: set[str]  # the definitions the model has seen (names and refs): not offered again
    spend: Spend = field(default_factory=Spend)
    prompt: str = ""  # the failure as last sent (an echo of it is no fix)
    #: The definitions shown on request: a fix may replace them as it replaces a suspect.
    shown: list[Suspect] = field(default_factory=list)
    #: The definitions the first prompt showed: a reply's bare method name means one of them.
    prompted: frozenset[tuple[str, str]] = frozenset()
    _read_last: tuple[client.Reply, tuple[Proposal, ...] | Unparsed] | None = None

    def _not_asked(self, number: int) -> Healed | Failed | None:
        """Why attempt number is not made (a limit, or a fix proved meanwhile); None: ask."""
        ask, log = self.task.proved_since, self.task.log
        since = ask() if ask is not None and number > 1 else None
        if isinstance(since, Healed):
            log.add(f"Attempt {number}: not asked", "a fix proved meanwhile heals it")
            return replace(since, spend=self.spend)  # what asking cost until then
        stop = self.task.limits.stop(self.spend, self.task.earlier_tokens)
        if stop is None:
            return None
        log.add(f"Attempt {number}: not asked", stop)
        if number == 1:
            return Failed(f"not attempted: {stop}", self.spend, decisive=True)
        done = f"stopped after {plural(number - 1, 'attempt')}"
        return Failed(f"{done}: {stop}", self.spend, decisive=True)

    def _asking(self, number: int) -> client.Reply | Healed | Failed:
        """Attempt number's reply, after up to MAX_ROUNDS rounds that show the model what it
        asked to see; or how the conversation ended before it."""
        reply = self._ask(number)
        for left in range(MAX_ROUNDS - 1, -1, -1):
            if not isinstance(reply, client.Reply):
                return reply
            wanted = self._wants(reply)
            if not wanted:
                return reply
            self._show(reply, wanted, number, left)
            reply = self._ask(number)
        return reply

    def _ask(self, number: int) -> client.Reply | Healed | Failed:
        """The model's next reply, its cost counted; or why there is none."""
        ended = self._not_asked(number)
        if ended is not None:
            return ended
        repairer = self.repairer
        try:
            sent = repairer.redactor.messages(conversation.fit(self.messages, self.room))
            reply = repairer.ask(
                repairer.name, sent, repairer.api_base, self.tools, repairer.settings.model_timeout
            )
        except client.ModelError as error:
            self.task.log.add(f"Attempt {number}: {repairer.name}", f"model error: {error}")
            return Failed(f"model error: {error}", self.spend)
        self.prompt = str(sent[1].get("content") or "")
        self.task.limits.charge(reply.cost, reply.prompt_tokens + reply.completion_tokens)
        self.spend = replace(
            self.spend,
            rounds=number,
            prompt_tokens=self.spend.prompt_tokens + reply.prompt_tokens,
            completion_tokens=self.spend.completion_tokens + reply.completion_tokens,
            cost=self.spend.cost + reply.cost,
        )
        return reply

    def _wants(self, reply: client.Reply) -> list[asking.Request]:
        """What the reply asks to see instead of proposing a fix: its show calls; else, when it
        proposes none, its SHOW lines or the project's functions it names that it has not seen."""
        if reply.tool_arguments or reply.truncated:
            return []
        if reply.show_call_ids:
            return asking.explicit(reply)
        if conversation.echoes(reply.text, self.prompt):
            return []
        read = self._read(reply)
        if not isinstance(read, Unparsed):
            return []
        if read.whole:  # a fix refused as a whole (where an edit goes): the reason goes back
            return asking.explicit(reply)
        known = lambda name: len(self.index.find(name)) == 1  # noqa: E731
        return asking.explicit(reply) or asking.named(reply.text, self.seen, known)

    def _show(
        self, reply: client.Reply, wanted: list[asking.Request], number: int, left: int
    ) -> None:
        """Answer what the reply asks to see, in the next message(s) of the conversation,
        within the room the request and the problem's token cap leave."""
        self.messages.append(reply.as_message())
        tokens = self.task.limits.max_tokens - self.spend.tokens - self.task.earlier_tokens
        by_tokens = tokens * conversation.CHARS_PER_TOKEN - conversation.size(self.messages)
        budget = min(MAX_SHOWN, conversation.left(self.messages, self.room), by_tokens)
        answers = asking.answer(wanted, self.index, budget)
        self.messages += asking.messages(wanted, answers, left, self.tools)
        self.seen.update(request.name for request in wanted)
        tests = self.repairer.editable.tests
        self.shown += [
            Suspect(a.place.path, a.place.qualname, a.place.path in tests, 0.0)
            for a in answers
            if a.place is not None and a.place.kind == "definition"
        ]
        self.spend = replace(self.spend, asked=self.spend.asked + tuple(a.said for a in answers))
        transcribe.shown(self.task.log, number, self.repairer.name, reply, answers)

    def _read(self, reply: client.Reply) -> tuple[Proposal, ...] | Unparsed:
        """The readings of a reply (read once)."""
        if self._read_last is None or self._read_last[0] is not reply:
            repairer = self.repairer
            readings = read_reply(
                reply.text,
                reply.tool_arguments,
                (*self.task.suspects, *self.shown),
                lambda suspect: repairer.editable.path(suspect.path),
                repairer.files.get,
                self.prompted | {(s.path, s.qualname) for s in self.shown},
            )
            self._read_last = (reply, readings)
        return self._read_last[1]
