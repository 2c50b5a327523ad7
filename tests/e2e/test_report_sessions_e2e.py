"""The report of nine real `pytest --heal` sessions of the same four failures (examples/report),
read in a headless Chromium as a user reads it: 4 bugs, 3 healed and 1 not; the replays of
remembered fixes apart from the repairs; one column per session; each fix's commit; and every
transcript link opening the transcript of its own row, written by its own session."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import DevTools, launched, needs_chromium
from helpers import git

from pytest_caretaker.history.page import write_report

pytestmark = needs_chromium
SESSIONS = 9
ROWS = """[...document.querySelectorAll('tr[data-session]')].map(row => ({
    session: row.dataset.session, lead: row.dataset.lead, outcome: row.dataset.outcome,
    link: row.querySelector('a.transcript') && row.querySelector('a.transcript').href}))"""


@pytest.fixture
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevTools]:
    with launched(tmp_path_factory.mktemp("chromium-profile")) as tools:
        yield tools


@pytest.fixture
def nine_sessions(pytester: pytest.Pytester) -> Path:
    """examples/report, healed eight times in memory and a ninth time with --heal-write."""
    pytester.copy_example("report")
    root = pytester.path
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".pytest_cache/\n__pycache__/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    for session in range(SESSIONS):
        write = ["--heal-write"] if session == SESSIONS - 1 else ["--heal"]
        # The first session's patch is judged (conftest.py); the next seven replay the same
        # fixes, and judging each again would cost two plain runs a session for nothing new.
        run = pytester.runpytest if session == 0 else pytester.runpytest_inprocess
        # Unsandboxed: the sandbox has tests of its own; here a session costs its verifications.
        # One repair at a time: with the default four, a session started a second warm
        # verification server for the replays (0.7 s of CPU a session); the report is the same.
        result = run(*write, "--heal-sandbox", "off", "--heal-concurrency", "1")
        result.assert_outcomes(failed=4, passed=1)
        result.stdout.fnmatch_lines(["caretaker: 3 healed, 1 not healed *"])
    return root


def test_nine_sessions_of_four_failures_read_as_four_bugs(
    nine_sessions: Path, browser: DevTools
) -> None:
    page, _ = write_report(nine_sessions)
    browser.open(page.as_uri(), 1280, 800)

    assert browser.errors() == []
    totals = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('dd[id^=total-]')]"
        ".map(d => [d.id.slice(6), d.textContent]))"
    )
    assert totals["bugs"] == "4" and totals["sessions"] == str(SESSIONS)
    assert (totals["healed"], totals["not-healed"]) == ("3", "1")
    # the first session repaired three bugs; the eight after it replayed the remembered fixes
    assert totals["repaired"] == f"3 / {3 + SESSIONS}" and totals["replays"] == str(3 * 8)
    text = browser.evaluate("document.body.innerText")
    assert "4 bugs (4 failing tests): 3 healed, 1 not healed" in text
    statuses = browser.evaluate(
        "[...document.querySelectorAll('#bugs tbody tr')].map(r => r.dataset.status)"
    )
    assert sorted(statuses) == ["healed", "healed", "healed", "not healed"]
    assert "builtin" in browser.evaluate("document.querySelector('#by-repairer-table').innerText")
    assert_one_column_per_session(browser)
    assert_each_fix_names_its_commit(browser, nine_sessions)
    assert_each_link_opens_its_rows_transcript(browser, nine_sessions)


def assert_one_column_per_session(browser: DevTools) -> None:
    columns = browser.evaluate(
        "[...document.querySelectorAll('#by-session g.session')].map(g => ({"
        "title: g.querySelector('title').textContent, "
        "parts: [...g.querySelectorAll('rect')].map(r => r.getAttribute('class'))}))"
    )
    assert len(columns) == SESSIONS
    assert all(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d: ", c["title"]) for c in columns)
    assert columns[0]["parts"] == ["repaired", "not-healed"]
    assert all(c["parts"] == ["from-cache", "not-healed"] for c in columns[1:])


def assert_each_fix_names_its_commit(browser: DevTools, root: Path) -> None:
    commits = git(root, "log", "--format=%h %s", "-n", "3").splitlines()
    shown = browser.evaluate(
        "[...document.querySelectorAll('#bugs tbody tr[data-status=healed] td:last-child')]"
        ".map(td => td.innerText)"
    )
    assert sorted(shown) == sorted(commits)
    assert all(line.split(" ", 1)[1].startswith("fix: heal test_calc.py::") for line in shown)


def assert_each_link_opens_its_rows_transcript(browser: DevTools, root: Path) -> None:
    rows: list[dict[str, Any]] = browser.evaluate(ROWS)
    assert len(rows) == 4 * SESSIONS
    assert len({row["session"] for row in rows}) == SESSIONS
    assert all(row["link"] for row in rows), [row for row in rows if not row["link"]]
    for row in rows:
        browser.open(row["link"], 1280, 800)
        transcript = browser.evaluate("document.body.innerText")
        verdict = "NOT HEALED" if row["outcome"] == "not healed" else "HEALED"
        assert transcript.startswith(f"# {verdict} {row['lead']}\n"), (row, transcript[:200])
        assert f"/transcripts/{row['session']}/" in row["link"]
        replayed = "from the cache of earlier runs" in transcript
        assert replayed == (row["outcome"] == "from cache"), row
