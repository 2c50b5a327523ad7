"""last-run.json (ci/): a session's results grouped by problem, redacted, valid against the JSON
Schema the package ships; the junitxml properties made of them; the Markdown job summary."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_caretaker.apply.rewrite import apply_edits
from pytest_caretaker.ci.job_summary import code, markdown
from pytest_caretaker.ci.junit import properties
from pytest_caretaker.ci.last_run import (
    SCHEMA_FILE,
    Ended,
    last_run_path,
    read_last_run,
    write_last_run,
)
from pytest_caretaker.ci.problems import hunks, problems, record
from pytest_caretaker.ci.texts import Texts
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.results import (
    Candidate,
    Doubt,
    Edit,
    FileChange,
    Fix,
    HealResult,
    Spend,
    Written,
)
from pytest_caretaker.settings import Settings

CALC = b"def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n\n\ndef total(xs):\n    return 0\n"
MEAN = Edit("replace", "calc.py", "mean", "def mean(xs):\n    return sum(xs) / len(xs)\n")
SECRET = "Zq8-hunter2-Vx7-pW4-kT9"
SHA = "3f2a9c1d" + "0" * 32


@dataclass
class Outcome:
    results: list[HealResult] = field(default_factory=list)
    written: list[Written] = field(default_factory=list)
    patch: Path | None = None


def candidate(explanation: str = "mean divided by one too many") -> Candidate:
    applied = apply_edits("calc.py", CALC, (MEAN,))
    assert isinstance(applied, FileChange)
    return Candidate((MEAN,), (applied,), explanation)


def validate(data: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(data)


def session(tmp_path: Path, outcome: Outcome | None, **more: Any) -> dict[str, Any]:
    settings = Settings(models=("builtin", MODEL), write=True)
    ended = Ended("pytest", settings, more.pop("redact", Redactor()), outcome, **more)
    assert write_last_run(tmp_path, ended) is None
    data = read_last_run(tmp_path)
    validate(data)
    return data


MODEL = "openai/gpt-4o-mini"
HEALED = HealResult(
    "t.py::test_mean",
    candidate(),
    spend=Spend(rounds=2, prompt_tokens=90, cost=0.01, seconds=1.5),
    repairer=MODEL,
)
SHARED = HealResult(
    "t.py::test_mean_again",
    candidate(),
    spend=Spend(seconds=0.5),
    repairer=MODEL,
    via="shared",
    shared_with="t.py::test_mean",
)
#: The engine's also_healed names the fix's first test, which may be a shared one itself.
ALSO = HealResult(
    "t.py::test_a_mean", candidate(), via="shared", shared_with="t.py::test_mean_again"
)
CACHED = HealResult("u.py::test_cached", candidate(), via="cache", repairer="builtin")
LEAD = HealResult("v.py::test_total", reason="still fails: 1 != 0", repairer="builtin")
SAME = HealResult(
    "v.py::test_total_twice",
    reason="still fails: 1 != 0 (one root cause with v.py::test_total, repaired once for all)",
    repairer="builtin",
)


def test_results_are_grouped_by_the_repair_that_decided_them() -> None:
    found = problems([ALSO, SAME, HEALED, CACHED, LEAD, SHARED])

    assert [[r.nodeid for r in p.results] for p in found] == [
        ["t.py::test_mean", "t.py::test_a_mean", "t.py::test_mean_again"],
        ["u.py::test_cached"],
        ["v.py::test_total", "v.py::test_total_twice"],
    ]
    assert [p.outcome for p in found] == ["healed", "from cache", "not healed"]
    assert found[0].spend.seconds == 2.0 and found[0].spend.prompt_tokens == 90
    assert found[2].reason == "still fails: 1 != 0"


def test_a_session_is_written_valid_with_its_problems_commit_and_totals(tmp_path: Path) -> None:
    fix = Fix((HEALED, SHARED))
    detail = f"committed {SHA[:7]} fix: heal t.py::test_mean (+1 more)"
    outcome = Outcome(
        [HEALED, SHARED, LEAD, SAME],
        [Written(fix, "committed", detail, SHA)],
        tmp_path / ".caretaker" / "heal.patch",
    )

    data = session(tmp_path, outcome, notes=["caretaker: a note"], seconds=3.25)

    assert data["schema"] == 1 and data["source"] == "pytest"
    assert data["mode"] == "heal (write and commit)" and data["write"] is True
    assert data["patch"] == ".caretaker/heal.patch"
    assert data["totals"] == {
        "problems": 2,
        "problems_healed": 1,
        "problems_unsure": 0,
        "tests": 4,
        "tests_healed": 2,
        "tests_unsure": 0,
        "tokens": 90,
        "cost": 0.01,
        "seconds": 3.25,
    }
    healed, unhealed = data["problems"]
    assert healed["tests"] == [
        {"id": "t.py::test_mean", "outcome": "healed"},
        {"id": "t.py::test_mean_again", "outcome": "shared"},
    ]
    assert healed["commit"] == {
        "state": "committed",
        "sha": SHA,
        "subject": "fix: heal t.py::test_mean (+1 more)",
        "detail": detail,
    }
    assert healed["patched"] == ["calc.py::mean"]
    (changed,) = healed["files"]
    assert changed["path"] == "calc.py"
    assert changed["hunks"] == [healed["diff"].split("\n", 3)[3]]
    assert unhealed["category"] == "still fails"
    assert unhealed["commit"] is None and unhealed["diff"] == ""
    assert healed["doubt"] is None and unhealed["doubt"] is None
    assert data["notes"] == ["caretaker: a note"]


def test_a_session_with_nothing_to_heal_replaces_the_last_one(tmp_path: Path) -> None:
    session(tmp_path, Outcome([LEAD]))

    data = session(tmp_path, None, interrupted=True)

    assert data["problems"] == [] and data["totals"]["problems"] == 0
    assert data["interrupted"] is True and data["patch"] is None
    assert not list(last_run_path(tmp_path).parent.glob(".last-run.json.*"))  # no draft left


def test_no_secret_reaches_the_file_or_the_junit_properties(tmp_path: Path) -> None:
    redactor = Redactor({"DB_PASSWORD": SECRET})
    nodeid = f"t.py::test_login[{SECRET}]"
    leaky = HealResult(nodeid, candidate(f"the password {SECRET} was wrong"))
    lost = HealResult("t.py::test_other", reason=f"still fails: {SECRET} != ''")
    outcome = Outcome([leaky, lost])

    session(tmp_path, outcome, redact=redactor, notes=[f"caretaker: {SECRET}"])

    assert SECRET not in last_run_path(tmp_path).read_text(encoding="utf-8")
    found = problems(outcome.results)
    text = Texts(redactor)
    props = properties(found, [record(p, (), text) for p in found])
    assert set(props) == {nodeid, "t.py::test_other"}  # by the ids pytest knows
    assert SECRET not in json.dumps(list(props.values()))
    assert props["t.py::test_other"]["caretaker_outcome"] == "not healed"
    assert props[nodeid]["caretaker_patch"].startswith("diff --git a/calc.py b/calc.py\n")


def test_junit_properties_name_the_commit_of_a_committed_fix() -> None:
    found = problems([HEALED, SHARED])
    written = [Written(Fix((HEALED, SHARED)), "committed", "committed", SHA)]
    props = properties(found, [record(p, written, Texts(Redactor())) for p in found])

    assert props["t.py::test_mean_again"] == {
        "caretaker_outcome": "shared",
        "caretaker_patch": props["t.py::test_mean"]["caretaker_patch"],
        "caretaker_reason": "",
        "caretaker_commit": SHA,
    }


def test_a_diff_is_split_into_files_and_hunks() -> None:
    diff = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
        "@@ -1,2 +1,2 @@\n-x\n+y\n z\n@@ -10,1 +10,1 @@\n-p\n+q\n"
        "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -3 +3 @@\n-@@\n+@\n"
    )

    assert hunks(diff) == [
        {"path": "a.py", "hunks": ["@@ -1,2 +1,2 @@\n-x\n+y\n z\n", "@@ -10,1 +10,1 @@\n-p\n+q\n"]},
        {"path": "b.py", "hunks": ["@@ -3 +3 @@\n-@@\n+@\n"]},
    ]


def test_reading_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"last-run\.json does not exist; pytest --heal"):
        read_last_run(tmp_path)
    last_run_path(tmp_path).parent.mkdir()
    last_run_path(tmp_path).write_text('{"schema": 2}')
    with pytest.raises(ValueError, match=r"has schema 2; this caretaker \(.*\) reads schema 1"):
        read_last_run(tmp_path)


def test_the_job_summary_lists_each_problem_and_folds_each_fix(tmp_path: Path) -> None:
    fix = Fix((HEALED, SHARED))
    written = [Written(fix, "committed", "committed", SHA)]
    text = "A | B <b>bold</b>"
    unhealed = HealResult("v.py::test_pipe", reason=f"still fails: {text}", repairer="builtin")
    data = session(tmp_path, Outcome([HEALED, SHARED, unhealed], written), seconds=2)

    lines = markdown(data).splitlines()

    assert lines[0] == "## caretaker: 1 of 2 problems healed (2 of 3 failing tests)"
    assert lines[2] == (
        "pytest --heal, heal (write and commit) · models builtin → openai/gpt-4o-mini · "
        "90 tokens · $0.0100 · 2.0 s"
    )
    assert (
        "| ✅ healed | `t.py::test_mean` (+1 more) | 2 | openai/gpt-4o-mini | "
        "`3f2a9c1` fix: heal t.py::test_mean (+1 more) |"
    ) in lines
    assert (
        "| ❌ not healed | `v.py::test_pipe` | 1 | builtin | "
        "still fails: A \\| B &lt;b&gt;bold&lt;/b&gt; |"
    ) in lines
    assert "<summary>`t.py::test_mean`: patched calc.py::mean</summary>" in lines
    assert "Heals too: `t.py::test_mean_again`" in lines
    start = lines.index("```diff")
    assert lines[start + 1] == "diff --git a/calc.py b/calc.py"
    assert "+    return sum(xs) / len(xs)" in lines[start:]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("t.py::test_a", "`t.py::test_a`"),
        ("t.py::test[a`b]", "``t.py::test[a`b]``"),
        ("t.py::test[`]", "``t.py::test[`]``"),
        ("`quoted`", "`` `quoted` ``"),
        ("t.py::test[a|b]", "`t.py::test[a\\|b]`"),
    ],
)
def test_inline_code_holds_any_test_id(text: str, shown: str) -> None:
    assert code(text) == shown


# -- UNSURE (#45) ------------------------------------------------------------------------------

AGE = Doubt(
    f"the tests cannot tell `<` from `<=` on line 2 ({SECRET})",
    call="age(date(1990, 6, 1), date(2024, 6, 1))",
    outcome="returns 34",
    other="returns 33",
    alternative="--- a/calc.py\n+++ b/calc.py\n@@ -2 +2 @@\n-    a\n+    b\n",
    test="def test_age():\n    assert age(date(1990, 6, 1), date(2024, 6, 1)) == ...\n",
)


def unsure(nodeid: str = "w.py::test_age", **more: Any) -> HealResult:
    from dataclasses import replace

    return HealResult(nodeid, replace(candidate(), doubt=AGE), repairer="builtin", **more)


def test_an_unsure_fix_is_no_heal_and_says_why_redacted(tmp_path: Path) -> None:
    lead, shared = (
        unsure(),
        unsure("w.py::test_age_too", via="shared", shared_with="w.py::test_age"),
    )
    detail = (
        "UNSURE: not written; review it with --heal-review, or take it with --heal-accept-unsure"
    )
    written = [Written(Fix((lead, shared)), "skipped", detail)]
    redactor = Redactor({"DB_PASSWORD": SECRET})

    data = session(tmp_path, Outcome([HEALED, lead, shared], written), redact=redactor)

    assert SECRET not in last_run_path(tmp_path).read_text(encoding="utf-8")
    totals = data["totals"]
    assert (totals["problems_healed"], totals["problems_unsure"]) == (1, 1)
    assert (totals["tests_healed"], totals["tests_unsure"]) == (1, 2)
    _, doubted = data["problems"]
    assert doubted["outcome"] == "unsure"
    assert [t["outcome"] for t in doubted["tests"]] == ["unsure", "unsure"]  # shared, same doubt
    assert doubted["doubt"] == {
        "reason": (
            "the tests cannot tell `<` from `<=` on line 2 ([redacted #1: value of $DB_PASSWORD])"
        ),
        "call": AGE.call,
        "outcome": "returns 34",
        "other": "returns 33",
        "alternative": AGE.alternative,
        "test": AGE.test,
    }
    assert doubted["commit"]["state"] == "skipped" and doubted["commit"]["detail"] == detail
    assert doubted["category"] == ""  # a fix was found: no reason it was not


def test_junit_says_unsure_of_an_unsure_fixs_tests() -> None:
    found = problems([unsure(), HEALED])
    props = properties(found, [record(p, (), Texts(Redactor())) for p in found])

    assert props["w.py::test_age"]["caretaker_outcome"] == "unsure"
    assert props["t.py::test_mean"]["caretaker_outcome"] == "healed"


def test_the_job_summary_marks_an_unsure_fix_and_tells_its_doubt(tmp_path: Path) -> None:
    data = session(tmp_path, Outcome([HEALED, unsure()]))

    lines = markdown(data).splitlines()

    assert lines[0] == "## caretaker: 1 of 2 problems healed, 1 unsure (1 of 2 failing tests)"
    assert "| ⚠️ unsure | `w.py::test_age` | 1 | builtin | in the patch |" in lines
    at = lines.index(
        f"> ⚠️ **Unsure: the tests cannot tell:** `&lt;` from `&lt;=` on line 2 ({SECRET})"
    )
    assert lines[at + 1 : at + 3] == [
        ">",
        "> Separating input: age(date(1990, 6, 1), date(2024, 6, 1)): this fix returns 34, "
        "the other returns 33",
    ]
    assert lines[at + 4 : at + 7] == [
        "```python",
        "def test_age():",
        ("    assert age(date(1990, 6, 1), date(2024, 6, 1)) == ..."),
    ]
