"""What proves a runtime fix, and what becomes of one that nothing but its crash proves.

A runtime fix is proved by the recorded call (it no longer raises), by the function's recorded
good calls (each returns what it returned before: check.py) and by the project's tests that run
the function. Each fix says which in its explanation's last sentence: ``Proved by the recorded
call, 3 recorded good calls and 2 tests.`` A fix proved by the recorded call alone is UNSURE:
that the call no longer raises says nothing of what it returns (``/ (len(gaps) + 1)`` stops a
ZeroDivisionError and is wrong for every input). Such a fix is never swapped into a running
function nor written without review (fixing.py, offline.py).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

from pytest_caretaker.results import Doubt, HealResult
from pytest_caretaker.runtime.records import Crash
from pytest_caretaker.syntax import parse
from pytest_caretaker.text import plural

#: Why a fix proved by its crash alone is UNSURE (what the summary shows after "the tests cannot
#: tell: ").
ONLY_THE_CALL = (
    "the only proof is that the recorded call no longer raises; no recorded good call and no "
    "test checks what {name} returns"
)

_PROOF = re.compile(r"(Proved (?:only )?by the recorded call[^.]*)\.\s*$")


@dataclass(frozen=True)
class Evidence:
    """What a fix of one crash is checked against besides the recorded call."""

    good: int  # recorded good calls that reproduce with the code as it is
    dropped: int  # recorded good calls that do not (state, time, a changed source): unused
    tests: int  # the project's tests that run the function and passed before

    @property
    def any(self) -> bool:
        return bool(self.good or self.tests)


def proved_by(evidence: Evidence) -> str:
    """``Proved by the recorded call, 3 recorded good calls and 2 tests``."""
    parts = [plural(evidence.good, "recorded good call")] if evidence.good else []
    parts += [plural(evidence.tests, "test")] if evidence.tests else []
    if parts:
        said = "Proved by the recorded call" + (", " if len(parts) > 1 else " and ")
        said += " and ".join(parts)
    else:
        said = "Proved only by the recorded call, which no longer raises"
    if evidence.dropped:
        said += (
            f" ({plural(evidence.dropped, 'other recorded good call')} gave another result "
            "with the code as it is, so proved nothing)"
        )
    return said


def proof_of(explanation: str) -> str:
    """The proof a runtime fix's explanation ends with, to follow a semicolon (``proved by the
    recorded call and 3 recorded good calls``); "" when there is none."""
    found = _PROOF.search(explanation)
    return found.group(1)[0].lower() + found.group(1)[1:] if found else ""


def settled(result: HealResult, evidence: Evidence, crash: Crash, returned: str) -> HealResult:
    """result, its fix saying what proved it; UNSURE when the recorded call alone did (unless
    it is UNSURE already: the repairer's doubt says more). returned: what the recorded call
    returns with the fix (repr)."""
    candidate = result.candidate
    if candidate is None:
        return result
    explanation = f"{candidate.explanation.rstrip()} {proved_by(evidence)}.".lstrip()
    doubt = candidate.doubt
    if doubt is None and not evidence.any:
        doubt = unproved(crash, returned)
    return replace(result, candidate=replace(candidate, explanation=explanation, doubt=doubt))


def unproved(crash: Crash, returned: str) -> Doubt:
    """The doubt of a fix proved by its crash alone: the recorded call, what the fix makes it
    return and what it raised, and a test that pins it (its expected value left to the reader)."""
    where = crash.where
    name = where.qualname.rpartition(".")[2]
    call = f"{name}{crash.data['call'].get('shown', '')}"
    exception = crash.data["exception"]
    raised = f"{exception['type']}: {exception['message']}".strip().rstrip(":")
    return Doubt(
        ONLY_THE_CALL.format(name=name),
        call=call,
        outcome=f"returns {returned}" if returned else "returns",
        other=f"raises {raised.splitlines()[0][:160] if raised else exception['type']}",
        test=_test(crash, call),
    )


def _test(crash: Crash, call: str) -> str:
    """A test of the recorded call with its expected value left open (``== ...``), when the
    function can be imported by name and its arguments are literals; else ""."""
    where = crash.where
    if where.module == "__main__" or "." in where.qualname or not _literal(call):
        return ""
    return (
        f"from {where.module} import {where.qualname}\n\n\n"
        f"def test_{where.qualname}_of_the_recorded_call():\n"
        f"    assert {call} == ...  # what it should return\n"
    )


def _literal(call: str) -> bool:
    """Whether call's arguments are all Python literals (a repr cut with "..." is not)."""
    try:
        (statement,) = parse(call).body
        node = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(node, ast.Call):
            return False
        for value in [*node.args, *(keyword.value for keyword in node.keywords)]:
            if ast.literal_eval(value) is Ellipsis:  # the record's "..." for arguments cut off
                return False
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):  # one statement
        return False
    return not any(keyword.arg is None for keyword in node.keywords)
