"""The report's numbers from a fixed history file, and the page made of them (history/stats.py,
page.py, tables.py, charts.py); the closing line's hint of a stale report (report/summary.py)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from pytest_caretaker.history.page import NoHistory, write_report
from pytest_caretaker.history.stats import Row, compute
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


def test_the_totals_and_the_success_rate(project: Path) -> None:
    stats = compute(read(project).records)

    assert stats.totals == Row("all", 5, 3, 9_800, pytest.approx(0.018), 4.2)  # type: ignore[arg-type]
    assert stats.totals.rate == 0.625
    assert (stats.sessions, stats.first, stats.last) == (
        3,
        "2025-03-01T09:00:00Z",
        "2025-03-03T08:15:00Z",
    )


def test_the_success_rate_by_day(project: Path) -> None:
    days = compute(read(project).records).by_day

    assert [(d.name, d.healed, d.total) for d in days] == [
        ("2025-03-01", 2, 3),
        ("2025-03-02", 1, 2),
        ("2025-03-03", 2, 3),
    ]


def test_the_rows_per_model_or_repairer(project: Path) -> None:
    rows = compute(read(project).records).by_repairer

    assert [(r.name, r.healed, r.not_healed, r.tokens, round(r.cost, 6)) for r in rows] == [
        ("openai/gpt-4o-mini", 2, 1, 4_800, 0.006),
        ("anthropic/claude-3-5-haiku", 1, 1, 5_000, 0.012),
        ("builtin", 1, 1, 0, 0.0),
        ("remembered fixes", 1, 0, 0, 0.0),
    ]
    assert [r.median_seconds for r in rows] == [4.2, pytest.approx(4.45), pytest.approx(5.95), 1.5]


def test_exception_types_reasons_and_the_top_lists(project: Path) -> None:
    stats = compute(read(project).records)

    assert [(r.name, r.healed, r.not_healed) for r in stats.by_exception] == [
        ("AssertionError", 3, 1),
        ("IndexError", 1, 0),
        ("TypeError", 1, 0),
        ("ValueError", 0, 1),
        ("ZeroDivisionError", 0, 1),
    ]
    assert [(r.category, r.count) for r in stats.reasons] == [
        ("broke a test", 1),
        ("model error", 1),
        ("no candidate", 1),
    ]
    assert [r["seconds"] for r in stats.slowest] == [8.0, 4.2, 4.2, 2.8, 1.5]
    assert [r["cost"] for r in stats.costliest] == [0.012, 0.0015]


def test_since_keeps_the_later_heals(project: Path) -> None:
    stats = compute(read(project).records, since="2025-03-02T00:00:00Z")

    assert (stats.totals.total, stats.totals.healed, stats.sessions) == (5, 3, 2)


def test_the_page_shows_the_numbers_and_draws_the_charts(project: Path) -> None:
    target, _ = write_report(project)

    page = target.read_text(encoding="utf-8")
    assert target == project / ".caretaker" / "report.html"
    assert '<dd id="total-rate">62.5 %</dd>' in page
    assert '<dd id="total-cost">$0.0180</dd>' in page and '"total-tokens">9,800<' in page
    assert "3 sessions</span> (8 failing tests) from 2025-03-01 09:00:00 UTC" in page
    assert page.count('<svg class="chart"') == 3
    assert page.count("-hatch)") >= 6  # not healed is hatched: it prints in black and white
    assert '<td>openai/gpt-4o-mini</td><td class="num">2</td>' in page
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


def test_a_transcript_is_linked_relative_to_the_page_while_it_exists(project: Path) -> None:
    transcripts = project / ".caretaker" / "transcripts"
    transcripts.mkdir()
    (transcripts / "tests_test_calc.py_test_mean-1a2b3c4d.md").write_text("# HEALED\n")

    page = write_report(project, project / "out" / "report.html")[0].read_text(encoding="utf-8")

    link = "../.caretaker/transcripts/tests_test_calc.py_test_mean-1a2b3c4d.md"
    assert page.count(f'<a href="{link}">transcript</a>') == 1


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
