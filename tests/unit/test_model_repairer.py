"""One model's conversation about one problem, with a scripted `ask` instead of litellm: the
rounds, what goes back to the model, the budget, the token cap, echoes, and when the chain moves
on. (The real HTTP path is tested end to end against the scripted server.)"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from pytest_caretaker.guard.scope import Editable
from pytest_caretaker.llm.client import ModelError, Reply
from pytest_caretaker.llm.models import Info
from pytest_caretaker.llm.repairer import ECHO, ModelRepairer
from pytest_caretaker.problem import Failed, Healed, Limits, Problem, Task
from pytest_caretaker.project.files import ProjectFiles, TestFiles
from pytest_caretaker.project.localize import Suspect
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.report.transcript import Transcript
from pytest_caretaker.results import (
    Accepted,
    Candidate,
    Failure,
    Proposal,
    Rejected,
    Spend,
    Verdict,
)
from pytest_caretaker.settings import Settings

CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
GOOD = "def mean(xs):\n    return sum(xs) / len(xs)\n"
WRONG = "def mean(xs):\n    return sum(xs) / (len(xs) + 2)\n"
LEAD = Failure(
    "test_calc.py::test_mean", "call", "test_calc.py", "AssertionError", "assert", "", ()
)
MODEL = "openai/scripted"


def reply(code: str, tokens: int = 100, cost: float = 0.01) -> Reply:
    return Reply(MODEL, f"```python\n{code}```\n", (), (), tokens, 10, cost)


@dataclass
class Script:
    """The model's side: replies (or errors) in order, and every conversation it was sent."""

    replies: list[Reply | ModelError]
    sent: list[list[dict[str, Any]]] = field(default_factory=list)

    def __call__(self, model: str, messages: Sequence[dict[str, Any]], *args: object) -> Reply:
        self.sent.append([dict(m) for m in messages])
        answer = self.replies.pop(0)
        if isinstance(answer, ModelError):
            raise answer
        return answer


def prove(proposal: Proposal) -> Accepted | Rejected:
    """GOOD is the fix; anything else breaks a neighbour."""
    if proposal.edits[0].source == GOOD:
        return Accepted(Candidate(proposal.edits, ()), Verdict(True))
    return Rejected("fix broke test_calc.py::test_total", "assert 4.5 == 6", proposal)


@pytest.fixture
def files(tmp_path: Path) -> ProjectFiles:
    (tmp_path / "calc.py").write_text(CALC)
    return ProjectFiles(tmp_path)


def converse(
    files: ProjectFiles,
    script: Script,
    limits: Limits | None = None,
    proved_since: Callable[[], Healed | Failed] | None = None,
    **settings: Any,
) -> tuple[Healed | Failed, Transcript]:
    editable = Editable("code", files.root, TestFiles(frozenset({"test_calc.py"})))
    repairer = ModelRepairer(
        MODEL,
        Settings(heal=True, models=(MODEL,), **settings),
        files,
        editable,
        Redactor({}),
        ask=script,
        describe=lambda model, api_base: Info(tools=False, context=100_000),
    )
    log = Transcript(LEAD.nodeid)
    suspects = (Suspect("calc.py", "mean", False, 1.0, (2,)),)
    task = Task(Problem((LEAD,)), suspects, {}, 0.1, prove, log, limits or Limits())
    return repairer.repair(replace(task, proved_since=proved_since)), log


def test_a_rejected_fix_goes_back_with_its_reason_and_the_next_round_heals(
    files: ProjectFiles,
) -> None:
    script = Script([reply(WRONG), reply(GOOD)])

    outcome, _ = converse(files, script)

    assert isinstance(outcome, Healed)
    assert outcome.by == MODEL
    assert (outcome.spend.rounds, outcome.spend.prompt_tokens) == (2, 200)
    assert outcome.spend.candidates == 0
    second = script.sent[1]
    assert second[-2]["role"] == "assistant"  # the rejected candidate, then why
    assert "fix broke test_calc.py::test_total" in second[-1]["content"]
    assert "assert 4.5 == 6" in second[-1]["content"]


def test_a_fix_another_problem_proved_meanwhile_ends_the_conversation_before_the_next_request(
    files: ProjectFiles,
) -> None:
    # Problems are repaired four at a time: the first of a root cause to find its fix saves the
    # others their next requests.
    proved = Healed(Candidate((), ()), Spend(), "other/model", Verdict(True), via="shared")
    asked: list[int] = []

    def since() -> Healed | Failed:
        asked.append(len(script.sent))
        return proved

    script = Script([reply(WRONG), reply(GOOD)])

    outcome, _ = converse(files, script, proved_since=since)

    assert len(script.sent) == 1 and asked == [1]  # asked after the first request, not before
    assert isinstance(outcome, Healed) and outcome.via == "shared"
    assert outcome.candidate is proved.candidate
    assert (outcome.spend.rounds, outcome.spend.prompt_tokens) == (1, 100)  # what it cost


def test_checked_attempts_that_all_fail_decide_for_the_chain(files: ProjectFiles) -> None:
    outcome, _ = converse(files, Script([reply(WRONG)] * 3))

    assert isinstance(outcome, Failed)
    assert outcome.decisive  # the model could work; its fixes were wrong
    assert outcome.reason == "fix broke test_calc.py::test_total"
    assert outcome.spend.rounds == 3


def test_replies_that_never_parse_pass_the_problem_on(files: ProjectFiles) -> None:
    prose = Reply(MODEL, "I would change the division.", (), (), 50, 5)

    outcome, _ = converse(files, Script([prose] * 3))

    assert isinstance(outcome, Failed)
    assert not outcome.decisive
    assert outcome.reason.startswith("model output did not parse:")


def test_a_model_error_passes_the_problem_on(files: ProjectFiles) -> None:
    outcome, log = converse(files, Script([ModelError("rate limited (429)")]))

    assert isinstance(outcome, Failed)
    assert not outcome.decisive
    assert outcome.reason == "model error: rate limited (429)"
    assert "model error: rate limited (429)" in log.render(None, _not_healed())


def test_an_echo_of_the_prompt_is_refused_with_its_reason(files: ProjectFiles) -> None:
    class Echoing(Script):
        """The first reply repeats the prompt it was sent."""

        def __call__(self, model: str, messages: Sequence[dict[str, Any]], *args: object) -> Reply:
            if not self.sent:
                self.replies.insert(0, Reply(MODEL, str(messages[1]["content"]), (), (), 10, 1))
            return super().__call__(model, messages, *args)

    script = Echoing([reply(GOOD)])

    outcome, _ = converse(files, script)

    assert isinstance(outcome, Healed)
    assert ECHO in script.sent[1][-1]["content"]


def test_a_spent_budget_asks_nothing(files: ProjectFiles) -> None:
    limits = Limits(0.01, spent=0.02)
    script = Script([reply(GOOD)])

    outcome, _ = converse(files, script, limits)

    assert script.sent == []
    assert isinstance(outcome, Failed)
    assert outcome.decisive
    assert outcome.reason == (
        "not attempted: the --heal-budget of $0.01 is spent ($0.0200 used); raise it to heal "
        "the rest"
    )


def test_the_budget_is_shared_and_stops_the_next_round(files: ProjectFiles) -> None:
    limits = Limits(0.05)
    script = Script([reply(WRONG, cost=0.06), reply(GOOD)])

    outcome, _ = converse(files, script, limits)

    assert len(script.sent) == 1
    assert limits.spent == pytest.approx(0.06)
    assert isinstance(outcome, Failed)
    assert outcome.reason.startswith("stopped after 1 attempt: the --heal-budget of $0.05 is spent")


def test_the_token_cap_stops_the_next_round(files: ProjectFiles) -> None:
    script = Script([reply(WRONG, tokens=1_500), reply(WRONG, tokens=1_500), reply(GOOD)])

    outcome, log = converse(files, script, Limits(max_tokens=3_000))

    assert len(script.sent) == 2
    assert isinstance(outcome, Failed)
    assert outcome.reason == (
        "stopped after 2 attempts: this problem used 3,020 tokens, the cap is 3,000 "
        "(raise it with --heal-max-tokens)"
    )
    assert "## Attempt 3: not asked" in log.render(None, _not_healed())


def _not_healed() -> Any:
    from pytest_caretaker.results import HealResult

    return HealResult(LEAD.nodeid, reason="-")


def test_each_reading_of_a_reply_is_proved_in_one_request(files: ProjectFiles) -> None:
    # A reply that defines mean twice (#34): the one marked as the fix first, then the other;
    # both are proved before the model is asked again.
    text = f"Here is the fix:\n```python\n{WRONG}```\nOr, simpler:\n```python\n{GOOD}```\n"
    script = Script([Reply(MODEL, text, (), (), 100, 10, 0.01)])

    outcome, log = converse(files, script)

    assert isinstance(outcome, Healed)
    assert outcome.spend.rounds == 1 and len(script.sent) == 1
    shown = "\n".join(log.sections)
    assert "Attempt 1: reading 1 of 2 of the reply" in shown
    assert "takes the one in code block 1 (marked as the fix)" in shown
    assert "rejected: fix broke test_calc.py::test_total" in shown
    assert "Attempt 1: reading 2 of 2 of the reply" in shown
    assert "takes the one in code block 2 (in the reply's order) · accepted" in shown


# -- rounds of showing code (#47, item 4) ----------------------------------------------------------

#: A function no prompt shows (nothing runs it), 302 lines of about 15 characters.
LONG = "def long():\n" + "".join(f"    x{n} = {n}\n" for n in range(300)) + "    return x0\n"


def asks(text: str = "SHOW: long\n", **calls: str) -> Reply:
    """A reply that asks to see code: SHOW lines, or show calls (id=arguments)."""
    return Reply(
        MODEL, text, (), (), 100, 10, show_arguments=(*calls.values(),), show_call_ids=(*calls,)
    )


def test_a_round_of_showing_code_is_no_attempt(files: ProjectFiles) -> None:
    (files.root / "long.py").write_text(LONG)
    script = Script([asks(), reply(GOOD)])

    outcome, log = converse(files, script)

    assert isinstance(outcome, Healed)
    assert (outcome.spend.rounds, outcome.spend.prompt_tokens) == (1, 200)  # two requests
    assert outcome.spend.asked == ("long (shown)",)
    assert "x99 = 99" in script.sent[1][-1]["content"] and script.sent[1][-1]["role"] == "user"
    shown = "\n".join(log.sections)
    assert "## Attempt 1: shown\n\nasked to see 1 definition: long (shown)" in shown


@pytest.mark.parametrize(("cap", "cut"), [(200_000, False), (2_000, True)])
def test_what_is_shown_is_cut_to_the_tokens_the_problem_has_left(
    files: ProjectFiles, cap: int, cut: bool
) -> None:
    (files.root / "long.py").write_text(LONG)
    script = Script([asks(), reply(GOOD)])

    outcome, _ = converse(files, script, Limits(max_tokens=cap))

    answer = script.sent[1][-1]["content"]
    assert outcome.spend.asked == (("long (shown, cut)",) if cut else ("long (shown)",))
    assert ("Cut to fit the token budget" in answer) is cut
    # What the next request holds stays within the cap, at 3 characters a token.
    assert sum(len(str(m["content"])) for m in script.sent[1]) <= 3 * (cap - 110)


def test_every_call_of_a_reply_that_proposes_a_fix_and_asks_is_answered(
    files: ProjectFiles,
) -> None:
    fix = json.dumps(
        {"explanation": "x", "edits": [{"path": "calc.py", "function": "mean", "code": WRONG}]}
    )
    calls = (
        {"id": "fix", "type": "function", "function": {"name": "propose_fix", "arguments": fix}},
        {"id": "look", "type": "function", "function": {"name": "show", "arguments": "{}"}},
    )
    both = Reply(
        MODEL,
        "",
        (fix,),
        ("fix",),
        100,
        10,
        raw_tool_calls=calls,
        show_arguments=('{"name": "long"}',),
        show_call_ids=("look",),
    )
    script = Script([both, reply(GOOD)])

    converse(files, script)

    answers = {m["tool_call_id"]: m["content"] for m in script.sent[1] if m["role"] == "tool"}
    assert set(answers) == {"fix", "look"}  # the fix is judged first; the look is not taken
    assert "fix broke test_calc.py::test_total" in answers["fix"]
    assert answers["look"] == "Not shown: the reply proposes a fix, which is judged first."
