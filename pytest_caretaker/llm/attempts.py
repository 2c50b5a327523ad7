"""What each attempt of a model conversation writes to the transcript: the reply, the edits it
was read into (and which reading, when there were several), and the verdict."""

from __future__ import annotations

from pytest_caretaker.llm import client
from pytest_caretaker.problem import Log
from pytest_caretaker.results import Accepted, Edit, Proposal, Rejected


def edits_of(decided: Accepted | Rejected) -> tuple[Edit, ...] | None:
    """The edits the reply parsed into; None when it parsed into none."""
    if isinstance(decided, Accepted):
        return decided.candidate.edits
    return decided.proposal.edits if decided.proposal is not None else None


def log_reading(
    log: Log, number: int, index: int, count: int, proposal: Proposal, decided: Accepted | Rejected
) -> None:
    verdict = "accepted" if isinstance(decided, Accepted) else f"rejected: {decided.reason}"
    which = f"reading {index} of {count}" if count > 1 else "reading"
    log.add(
        f"Attempt {number}: {which} of the reply",
        f"{proposal.note or 'the definitions the reply gives first'} · {verdict}",
    )


def log_attempt(
    log: Log, number: int, model: str, reply: client.Reply, decided: Accepted | Rejected
) -> None:
    log.add(
        f"Attempt {number}: reply from {reply.model or model}",
        f"{reply.prompt_tokens:,} prompt + {reply.completion_tokens:,} completion tokens"
        f" · ${reply.cost:.4f}",
        code="\n\n".join([reply.text, *reply.tool_arguments]).strip(),
    )
    edits = edits_of(decided)
    if edits is not None:
        log.add(
            f"Attempt {number}: parsed edits",
            code="\n\n".join(f"# {e.kind} {e.ref}\n{e.source}" for e in edits),
            language="python",
        )
    log.add(
        f"Attempt {number}: verdict",
        "accepted: the failing test passes and its neighbours still pass"
        if isinstance(decided, Accepted)
        else f"rejected: {decided.reason}",
        code=(decided.detail or None) if isinstance(decided, Rejected) else None,
    )
