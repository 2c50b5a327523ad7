"""What a model's conversation leaves in the transcript, round by round: each reply with its
tokens and cost, what it was read as and its verdict, and what the model asked to see and was
shown (asking.py)."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_caretaker.llm import client
from pytest_caretaker.llm.show import Shown
from pytest_caretaker.problem import Log
from pytest_caretaker.report.levels import asked
from pytest_caretaker.results import Accepted, Edit, Proposal, Rejected


def edits(decided: Accepted | Rejected) -> tuple[Edit, ...] | None:
    """The edits the reply parsed into; None when it parsed into none."""
    if isinstance(decided, Accepted):
        return decided.candidate.edits
    return decided.proposal.edits if decided.proposal is not None else None


def reading(
    log: Log, number: int, index: int, count: int, proposal: Proposal, decided: Accepted | Rejected
) -> None:
    verdict = "accepted" if isinstance(decided, Accepted) else f"rejected: {decided.reason}"
    which = f"reading {index} of {count}" if count > 1 else "reading"
    log.add(
        f"Attempt {number}: {which} of the reply",
        f"{proposal.note or 'the definitions the reply gives first'} · {verdict}",
    )


def attempt(
    log: Log, number: int, model: str, reply: client.Reply, decided: Accepted | Rejected
) -> None:
    log.add(
        f"Attempt {number}: reply from {reply.model or model}",
        _cost(reply),
        code="\n\n".join([reply.text, *reply.tool_arguments]).strip(),
    )
    parsed = edits(decided)
    if parsed is not None:
        log.add(
            f"Attempt {number}: parsed edits",
            code="\n\n".join(f"# {e.kind} {e.ref}\n{e.source}" for e in parsed),
            language="python",
        )
    log.add(
        f"Attempt {number}: verdict",
        "accepted: the failing test passes and its neighbours still pass"
        if isinstance(decided, Accepted)
        else f"rejected: {decided.reason}",
        code=(decided.detail or None) if isinstance(decided, Rejected) else None,
    )


def shown(log: Log, number: int, model: str, reply: client.Reply, answers: Sequence[Shown]) -> None:
    """A reply that asks to see code, and what it was shown."""
    log.add(
        f"Attempt {number}: reply from {reply.model or model}, asking to see code",
        _cost(reply),
        code="\n\n".join([reply.text, *reply.show_arguments]).strip(),
    )
    log.add(
        f"Attempt {number}: shown",
        asked([answer.said for answer in answers]),
        code="\n\n".join(answer.answer for answer in answers),
    )


def _cost(reply: client.Reply) -> str:
    return (
        f"{reply.prompt_tokens:,} prompt + {reply.completion_tokens:,} completion tokens"
        f" · ${reply.cost:.4f}"
    )
