"""The heal history: one redacted record per failing case, appended and rotated (history/)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_caretaker.apply.rewrite import apply_edits
from pytest_caretaker.history import read, record_session
from pytest_caretaker.history.reasons import category
from pytest_caretaker.history.store import ROTATED, append, history_path
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.report import files as report_files
from pytest_caretaker.results import (
    Candidate,
    Doubt,
    Edit,
    Failure,
    FileChange,
    Fix,
    HealResult,
    Spend,
    Written,
)
from pytest_caretaker.settings import Settings

CALC = b"def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
MEAN = Edit("replace", "calc.py", "mean", "def mean(xs):\n    return sum(xs) / len(xs)\n")
SECRET = "Zq8-hunter2-Vx7-pW4-kT9"
MODEL = "openai/gpt-4o-mini"


@dataclass
class Outcome:
    """What engine.HealOutcome carries to the history (its Protocol, history.record.Outcome)."""

    results: list[HealResult] = field(default_factory=list)
    written: list[Written] = field(default_factory=list)
    transcripts: dict[str, object] = field(default_factory=dict)


def candidate() -> Candidate:
    applied = apply_edits("calc.py", CALC, (MEAN,))
    assert isinstance(applied, FileChange)
    return Candidate((MEAN,), (applied,), "mean divided by one too many")


def failure(nodeid: str, exc_type: str = "AssertionError") -> Failure:
    return Failure(nodeid, "call", "test_calc.py", exc_type, "boom", "", ())


def recorded(tmp_path: Path, outcome: Outcome, **kwargs: object) -> list[dict[str, object]]:
    failures = {r.nodeid: failure(r.nodeid) for r in outcome.results}
    path = record_session(
        tmp_path, outcome, Settings(models=(MODEL,)), Redactor(), failures, **kwargs
    )  # type: ignore[arg-type]
    assert path == history_path(tmp_path)
    return read(tmp_path).records


def test_a_healed_case_is_recorded_with_its_spend_fix_commit_and_transcript(
    tmp_path: Path,
) -> None:
    spend = Spend(rounds=2, prompt_tokens=900, completion_tokens=100, cost=0.0021, seconds=3.25)
    healed = HealResult("test_calc.py::test_mean", candidate(), spend=spend, repairer=MODEL)
    written = Written(Fix((healed,)), "committed", "committed as 3f2c1ab", commit="3f2c1ab")
    session = report_files.new_session()
    folder = report_files.output_dir(tmp_path)
    report_files.write_all(folder, {healed.nodeid: "# HEALED\n"}, session=session)
    outcome = Outcome([healed], [written], {healed.nodeid: object()})

    [record] = recorded(tmp_path, outcome, session=session)

    assert record["outcome"] == "healed" and record["category"] == "" and record["reason"] == ""
    assert record["tests"] == ["test_calc.py::test_mean"]
    assert record["exception"] == "AssertionError" and record["repairer"] == MODEL
    assert record["source"] == "pytest" and record["models"] == [MODEL]
    assert (record["attempts"], record["candidates"]) == (2, 0)
    assert (record["prompt_tokens"], record["completion_tokens"], record["tokens"]) == (
        900,
        100,
        1000,
    )
    assert (record["cost"], record["seconds"]) == (0.0021, 3.25)
    assert record["patched"] == ["calc.py::mean"]
    assert (record["written"], record["commit"]) == ("committed", "3f2c1ab")
    assert record["subject"] == "fix: heal test_calc.py::test_mean"
    assert record["problem"] == "test_calc.py::test_mean"
    assert "+    return sum(xs) / len(xs)" in str(record["diff"])
    transcript = str(record["transcript"])
    assert transcript.startswith(f".caretaker/transcripts/{session}/")
    assert (tmp_path / transcript).read_text() == "# HEALED\n"
    assert str(record["time"]).endswith("Z") and record["session"] == session


def test_a_case_not_healed_is_recorded_with_its_reason_and_category(tmp_path: Path) -> None:
    reason = "fix broke test_calc.py::test_total"
    spend = Spend(rounds=3, prompt_tokens=3000, completion_tokens=600, cost=0.0045, seconds=9.0)
    outcome = Outcome([HealResult("test_calc.py::test_median", reason=reason, spend=spend)])

    [record] = recorded(tmp_path, outcome)

    assert record["outcome"] == "not healed" and record["reason"] == reason
    assert record["category"] == "broke a test"
    assert record["diff"] == "" and record["patched"] == [] and record["transcript"] == ""
    assert record["tokens"] == 3600 and record["commit"] == ""


def test_remembered_and_shared_fixes_are_recorded_as_such(tmp_path: Path) -> None:
    cached = HealResult("t.py::test_a", candidate(), repairer=MODEL, via="cache")
    shared = HealResult(
        "t.py::test_b", candidate(), repairer=MODEL, via="shared", shared_with="t.py::test_a"
    )
    builtin = HealResult("t.py::test_c", candidate(), spend=Spend(candidates=7), repairer="builtin")

    records = recorded(tmp_path, Outcome([cached, shared, builtin]))

    assert [r["outcome"] for r in records] == ["from cache", "shared", "healed"]
    assert records[1]["shared_with"] == "t.py::test_a"
    assert records[1]["diff"] == ""  # the fix is in the record of the case that found it
    assert records[2]["candidates"] == 7 and records[2]["attempts"] == 0
    assert len({r["session"] for r in records}) == 1
    # one problem: the cached lead and the case its fix heals too; the builtin fix its own
    assert [r["problem"] for r in records] == ["t.py::test_a", "t.py::test_a", "t.py::test_c"]


def test_an_unsure_fix_is_recorded_unsure_with_why_the_tests_cannot_tell(tmp_path: Path) -> None:
    from dataclasses import replace

    doubt = Doubt(f"the tests cannot tell `<` from `<=` ({SECRET})", call="mean([])")
    lead = HealResult("t.py::test_a", replace(candidate(), doubt=doubt), repairer="builtin")
    shared = replace(lead, nodeid="t.py::test_b", via="shared", shared_with="t.py::test_a")
    plain = HealResult("t.py::test_c", candidate(), repairer="builtin")
    failures = {r.nodeid: failure(r.nodeid) for r in (lead, shared, plain)}
    redactor = Redactor({"DB_PASSWORD": SECRET})

    record_session(tmp_path, Outcome([lead, shared, plain]), Settings(), redactor, failures)
    records = read(tmp_path).records

    assert [r["outcome"] for r in records] == ["unsure", "unsure", "healed"]
    assert str(records[0]["doubt"]).startswith("the tests cannot tell `<` from `<=` (")
    assert SECRET not in json.dumps(records)
    assert records[0]["diff"] and records[2]["doubt"] == ""  # the fix is kept, for review


def test_the_cases_of_one_root_cause_not_healed_share_their_lead(tmp_path: Path) -> None:
    lead = HealResult("t.py::test_a", reason="model error: timed out", repairer=MODEL)
    other = HealResult(
        "t.py::test_b",
        reason="model error: timed out (one root cause with t.py::test_a, repaired once for all)",
    )

    records = recorded(tmp_path, Outcome([other, lead]))

    assert [(r["tests"], r["problem"]) for r in records] == [
        (["t.py::test_a"], "t.py::test_a"),
        (["t.py::test_b"], "t.py::test_a"),
    ]


def test_each_session_keeps_its_transcripts_and_the_latest_sessions_stay(tmp_path: Path) -> None:
    folder = report_files.output_dir(tmp_path)
    sessions = [f"2025030{n}T090000Z-00000{n}" for n in range(1, 5)]
    for number, session in enumerate(sessions):
        report_files.write_all(folder, {"t.py::a": f"# session {number}\n"}, None, session, 3)

    kept = sorted(p.name for p in (folder / "transcripts").iterdir())
    assert kept == sessions[1:]  # the oldest is gone: three are kept
    for number, session in enumerate(sessions[1:], 1):
        path = tmp_path / report_files.transcript_path("t.py::a", session)
        assert path.read_text() == f"# session {number}\n"


def test_keeping_no_transcripts_writes_none_and_removes_the_kept(tmp_path: Path) -> None:
    folder = report_files.output_dir(tmp_path)
    report_files.write_all(folder, {"t.py::a": "# one\n"}, None, report_files.new_session())
    (folder / "transcripts" / "notes").mkdir()  # not a session's: left alone

    written = report_files.write_all(folder, {"t.py::a": "# two\n"}, None, "x", keep=0)

    assert written is None
    assert [p.name for p in (folder / "transcripts").iterdir()] == ["notes"]


def test_the_front_end_is_the_source_and_each_session_its_own_id(tmp_path: Path) -> None:
    result = HealResult("t.py::test_a", reason="model error: timed out")
    recorded(tmp_path, Outcome([result]))

    records = recorded(tmp_path, Outcome([result]), source="runtime")

    assert [r["source"] for r in records] == ["pytest", "runtime"]
    assert records[0]["session"] != records[1]["session"]


def test_a_secret_in_a_test_id_or_reason_never_reaches_the_file(tmp_path: Path) -> None:
    nodeid = f"test_login.py::test_login[{SECRET}]"
    result = HealResult(nodeid, reason=f"model error: the key {SECRET} was refused")
    redactor = Redactor({"DB_PASSWORD": SECRET})

    record_session(tmp_path, Outcome([result]), Settings(), redactor, {nodeid: failure(nodeid)})

    text = history_path(tmp_path).read_text(encoding="utf-8")
    assert SECRET not in text
    assert "[redacted #1: value of $DB_PASSWORD]" in json.loads(text)["tests"][0]


def test_an_unwritable_folder_costs_the_record_not_the_session(tmp_path: Path) -> None:
    (tmp_path / ".caretaker").write_text("a file where the folder should be")

    path = record_session(
        tmp_path, Outcome([HealResult("t::a", reason="x")]), Settings(), Redactor()
    )

    assert path is None


def test_past_its_bound_the_history_is_rotated_once_and_read_whole(tmp_path: Path) -> None:
    line = {"outcome": "healed", "padding": "x" * 80}
    for number in range(10):  # about 100 bytes a line: rotated after every fourth
        append(tmp_path, [{**line, "n": number}], max_bytes=400)

    folder = tmp_path / ".caretaker"
    assert (folder / ROTATED).is_file()
    assert history_path(tmp_path).stat().st_size < 400
    numbers = [r["n"] for r in read(tmp_path).records]
    assert numbers == [4, 5, 6, 7, 8, 9]  # one older file is kept: the oldest lines go


def test_a_line_cut_short_is_counted_and_the_rest_read(tmp_path: Path) -> None:
    append(tmp_path, [{"n": 1}])
    with history_path(tmp_path).open("a", encoding="utf-8") as handle:
        handle.write('{"n": 2, "cut')
    append(tmp_path, [{"n": 3}])  # a session killed mid-line: the next starts a line of its own

    history = read(tmp_path)

    assert [r["n"] for r in history.records] == [1, 3]
    assert history.unreadable == 1


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("model error: connection refused", "model error"),
        ("model output did not parse: no code block", "model error"),
        ("fix refused: the fix edits test code (conftest.py)", "fix refused"),
        ("fix does not apply: calc.py has no function mean", "fix refused"),
        ("test_calc.py::test_mean still fails", "still fails"),
        ("fix broke test_calc.py::test_total", "broke a test"),
        ("test_calc.py::test_mean still hangs", "timeout"),
        ("not attempted: healing was interrupted (Ctrl-C)", "not attempted"),
        ("not attempted: the session's healing budget of 120 s is spent", "not attempted"),
        ("the built-in repairer's budget of 20 s ran out after 3 of 9 candidate edits", "timeout"),
        ("stopped after 2 attempts: the --heal-budget of $0.10 is spent", "budget"),
        (
            "the built-in repairer tried all 12 candidate edits in 9.1 s; none made it",
            "no candidate",
        ),
        (
            "the failure is in test code (no code under test ran in it); --heal-scope",
            "not editable",
        ),
        ("the test passes when rerun alone (flaky or order-dependent)", "flaky"),
        ("its fix is left out of the patch: it conflicts with another", "left out of the patch"),
        (
            "caretaker failed on this test: KeyError('x') at chain.py:3; please report it",
            "internal error",
        ),
        (
            "builtin: it tried all 3 candidate edits; then gpt: model error: 500",
            "model error",
        ),
        ("something nobody wrote a pattern for", "other"),
    ],
)
def test_each_reason_has_its_category(reason: str, expected: str) -> None:
    assert category(reason) == expected
