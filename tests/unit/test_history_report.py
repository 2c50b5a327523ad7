"""The report's numbers from a fixed history file, and the page made of them (history/stats.py,
page.py, tables.py, charts.py); the closing line's hint of a stale report (report/summary.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from pytest_caretaker.history.page import NoHistory, write_report
from pytest_caretaker.history.stats import compute
from pytest_caretaker.history.store import read
from pytest_caretaker.report.summary import closing_line
from pytest_caretaker.results import HealResult

FIXED = Path(__file__).parents[1] / "integration" / "test_report_history.jsonl"
HOSTILE = "tests/test_x.py::test_html[<script>alert(1)</script>]"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".caretaker").mkdir()
    shutil.copy(FIXED, tmp_path / ".caretaker" / "history.jsonl")
    return tmp_path


def test_the_unit_is_the_bug_and_a_replay_is_no_new_success(project: Path) -> None:
    stats = compute(read(project).records)

    assert (len(stats.bugs), stats.healed, len(stats.sessions)) == (8, 4, 5)
    mean = next(b for b in stats.bugs if b.first.key[1] == "tests/test_calc.py::test_mean")
    assert mean.first.tests == [
        "tests/test_calc.py::test_mean",
        "tests/test_calc.py::test_mean_of_one",
    ]
    assert [s.outcome for s in mean.seen] == ["healed", "from cache"] and mean.replays == 1
    assert mean.commit == ("3f2c1ab", "")
    assert stats.replays == 1
    assert (stats.fresh.healed, stats.fresh.total) == (4, 8)  # the replay is not among them
    assert (stats.first, stats.last) == ("2025-03-01T09:00:00Z", "2025-03-04T11:00:00Z")


def test_runtime_crashes_and_run_findings_are_named_as_such(project: Path) -> None:
    bugs = compute(read(project).records).bugs

    assert [(b.first.key[1], b.kind) for b in bugs[:2]] == [
        ("python report.py", "caretaker run finding"),
        ("shop.py::total", "runtime crash"),
    ]
    assert bugs[0].commit == ("9c8b7a6", "fix: heal python report.py")  # the short hash


def test_one_row_per_session_with_its_problems(project: Path) -> None:
    sessions = compute(read(project).records).sessions

    assert [(s.time[:10], [p.outcome for p in s.seen]) for s in sessions] == [
        ("2025-03-01", ["healed", "not healed"]),
        ("2025-03-02", ["healed", "not healed"]),
        ("2025-03-03", ["from cache", "healed", "not healed"]),
        ("2025-03-04", ["not healed"]),
        ("2025-03-04", ["healed"]),
    ]
    first = sessions[0].seen[0]
    assert first.seconds == 4.2  # the lead's clock, once: the case it heals too costs nothing


def test_the_rates_per_repairer_count_fresh_repairs_only(project: Path) -> None:
    rows = compute(read(project).records).by_repairer

    # builtin failed before claude healed the shapes bug: asked, not healed, spent nothing
    assert [(r.name, r.healed, r.not_healed, r.tokens, round(r.cost, 6)) for r in rows] == [
        ("builtin", 2, 3, 0, 0.0),
        ("anthropic/claude-3-5-haiku", 1, 1, 5_000, 0.012),
        ("openai/gpt-4o-mini", 1, 1, 4_800, 0.006),
    ]
    assert "remembered fixes" not in [r.name for r in rows]


def test_exception_types_reasons_and_each_test_across_sessions(project: Path) -> None:
    stats = compute(read(project).records)

    assert [(r.name, r.healed, r.not_healed) for r in stats.by_exception][:2] == [
        ("AssertionError", 1, 1),
        ("ZeroDivisionError", 1, 1),
    ]
    assert [(r.category, r.count) for r in stats.reasons] == [
        ("no candidate", 2),
        ("broke a test", 1),
        ("model error", 1),
    ]
    mean = stats.tests[0]
    assert (mean.test, mean.seen[0]["time"], len(mean.seen)) == (
        "tests/test_calc.py::test_mean",
        "2025-03-01T09:00:00Z",
        2,
    )
    assert dict(mean.tried) == {"openai/gpt-4o-mini": 1}  # the replay tried nothing


def test_since_keeps_the_later_sessions(project: Path) -> None:
    stats = compute(read(project).records, since="2025-03-02T00:00:00Z")

    assert (len(stats.bugs), stats.healed, len(stats.sessions)) == (7, 4, 4)


def test_the_page_shows_the_numbers_and_draws_the_charts(project: Path) -> None:
    target, _ = write_report(project)

    page = target.read_text(encoding="utf-8")
    assert target == project / ".caretaker" / "report.html"
    assert '<dd id="total-bugs">8</dd>' in page and '<dd id="total-healed">4</dd>' in page
    assert '<dd id="total-replays">1</dd>' in page and '"total-repaired">4 / 8<' in page
    assert '<dd id="total-cost">$0.0180</dd>' in page and '"total-tokens">9,800<' in page
    assert (
        "8 bugs</span> (6 failing tests, 1 caretaker run finding, 1 runtime crash): "
        "4 healed, 4 not healed"
    ) in page
    assert page.count('<svg class="chart"') == 2
    assert page.count('<g class="session">') == 5
    assert page.count("-hatch)") >= 6  # not healed is hatched: it prints in black and white
    assert "<code>9c8b7a6</code> fix: heal python report.py" in page
    assert '<span class="add">+        return self.w * self.h</span>' in page


def test_the_page_is_self_contained(project: Path) -> None:
    page = write_report(project)[0].read_text(encoding="utf-8")

    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert re.findall(r"(?:src|href)=\"(?:https?:)?//", page) == []
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg"}


def test_a_hostile_test_id_and_reason_are_shown_as_text(project: Path) -> None:
    page = write_report(project)[0].read_text(encoding="utf-8")

    assert "<script>" not in page and "<b>429</b>" not in page
    assert "test_html[&lt;script&gt;alert(1)&lt;/script&gt;]" in page
    assert "rate limited &lt;b&gt;429&lt;/b&gt; &amp; retry later" in page


def test_each_row_links_the_transcript_of_its_session_while_it_exists(project: Path) -> None:
    kept = project / ".caretaker" / "transcripts" / "20250304T110000Z-e0e0e0"
    kept.mkdir(parents=True)
    (kept / "python_report.py-1a2b3c4d.md").write_text("# HEALED python report.py\n")
    history = project / ".caretaker" / "history.jsonl"
    lines = history.read_text().splitlines()
    lines[-1] = lines[-1].replace(
        '"transcript":""',
        '"transcript":".caretaker/transcripts/20250304T110000Z-e0e0e0/python_report.py-1a2b3c4d.md"',
    )
    history.write_text("\n".join(lines) + "\n")

    page = write_report(project, project / "out" / "report.html")[0].read_text(encoding="utf-8")

    link = "../.caretaker/transcripts/20250304T110000Z-e0e0e0/python_report.py-1a2b3c4d.md"
    assert page.count(f'<a class="transcript" href="{link}">transcript</a>') == 1
    assert page.count('<span title="not kept">—</span>') == 8  # the other rows: none kept


def test_no_history_is_said_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(NoHistory, match=r"^no heal history in .*history\.jsonl yet: run pytest"):
        write_report(tmp_path)


def test_the_closing_line_points_to_a_report_older_than_the_history(project: Path) -> None:
    results = [HealResult("t::a", reason="no fix")]
    report = project / ".caretaker" / "report.html"
    assert "caretaker report" not in closing_line(results, None, project)  # no report: no hint

    report.write_text("made before")
    os.utime(report, (1_000_000, 1_000_000))
    assert closing_line(results, None, project).endswith(
        " · caretaker report updates .caretaker/report.html"
    )

    write_report(project)
    assert "caretaker report" not in closing_line(results, None, project)  # up to date


def test_a_rows_fix_names_the_commit_that_broke_its_test() -> None:
    from pytest_caretaker.history.rows import Seen
    from pytest_caretaker.history.sessions import fix

    culprit = "broken by 1a2b3c4 <Make rates regional> (Ann, 2026-11-20)"
    healed = Seen(({"outcome": "healed", "diff": "-a\n+b\n", "culprit": culprit},))
    unhealed = Seen(({"outcome": "not healed", "reason": "no fix", "culprit": culprit},))
    plain = Seen(({"outcome": "not healed", "reason": "no fix"},))

    assert '<div class="culprit">broken by 1a2b3c4 &lt;Make rates regional&gt;' in fix(healed)
    assert fix(unhealed).startswith('no fix<div class="culprit">')
    assert fix(plain) == "no fix"


def with_an_unsure_fix(project: Path) -> Path:
    """The fixed history, and a later session that found an UNSURE fix of a new bug (its second
    test shares it) and healed another."""
    history = project / ".caretaker" / "history.jsonl"
    doubt = "the tests cannot tell `<` from `<=` on line 3"
    common = {"v": 1, "time": "2025-03-05T08:00:00Z", "session": "ffffffffffff", "source": "pytest"}
    age = {"problem": "t.py::test_age", "outcome": "unsure", "repairer": "builtin", "doubt": doubt}
    lines = [
        {**common, **age, "tests": ["t.py::test_age"], "diff": "-  if a > b:\n+  if a < b:\n"},
        {**common, **age, "tests": ["t.py::test_age_too"], "shared_with": "t.py::test_age"},
        {**common, "tests": ["t.py::test_sum"], "outcome": "healed", "diff": "-a\n+b\n"},
    ]
    with history.open("a", encoding="utf-8") as stream:
        stream.writelines(json.dumps(line) + "\n" for line in lines)
    return project


def test_an_unsure_bug_is_counted_apart_from_the_healed(project: Path) -> None:
    stats = compute(read(with_an_unsure_fix(project)).records)

    assert (len(stats.bugs), stats.healed, stats.unsure) == (10, 5, 1)
    age = next(b for b in stats.bugs if b.first.key[1] == "t.py::test_age")
    assert (age.status, age.healed, age.tests) == (
        "unsure",
        False,
        ["t.py::test_age", "t.py::test_age_too"],
    )
    assert stats.sessions[-1].count("unsure") == 1
    assert ("builtin", False) in age.first.tried  # asked, and no heal
    unsure = next(r for r in stats.reasons if r.category == "unsure")
    assert (unsure.count, unsure.example) == (1, "the tests cannot tell `<` from `<=` on line 3")


def test_the_page_counts_an_unsure_bug_and_shows_its_row_and_doubt(project: Path) -> None:
    page = write_report(with_an_unsure_fix(project))[0].read_text(encoding="utf-8")

    assert "5 healed, 1 unsure, 4 not healed, met in" in page
    assert '<dd id="total-unsure">1</dd>' in page and '<dd id="total-not-healed">4</dd>' in page
    assert '<tr data-status="unsure">' in page
    assert '<td class="outcome unsure">unsure</td>' in page
    said = "the tests cannot tell: `&lt;` from `&lt;=` on line 3"
    assert f"not written: {said}" in page  # the bug's row
    assert f'<div class="doubt">{said}</div>' in page  # its session's row, under the diff
    assert "1 repaired, 0 replayed from cache, 0 not healed, 1 unsure" in page


def test_a_page_with_nothing_unsure_says_nothing_of_it(project: Path) -> None:
    page = write_report(project)[0].read_text(encoding="utf-8")

    assert "unsure" not in page.replace(".outcome.unsure", "")
