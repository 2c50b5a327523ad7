"""The report page in a real browser: headless Chromium driven over the DevTools protocol
(chromium.py). The page must load without a console error or a request off the machine, show the
numbers, draw its charts, and fit a laptop and a phone screen without scrolling sideways."""

from __future__ import annotations

import shutil
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import DevTools, launched, needs_chromium, screenshot

from pytest_caretaker.history.page import write_report

FIXED = Path(__file__).parents[1] / "integration" / "test_report_history.jsonl"
pytestmark = needs_chromium
VIEWPORTS = [(1280, 800), (390, 844)]


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevTools]:
    with launched(tmp_path_factory.mktemp("chromium-profile")) as tools:
        yield tools


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    (root / ".caretaker").mkdir()
    shutil.copy(FIXED, root / ".caretaker" / "history.jsonl")
    return write_report(root)[0]


def test_the_harness_sees_a_console_error(browser: DevTools) -> None:
    """The check below can fail: a page that logs an error is caught."""
    browser.open("data:text/html,<script>console.error('broken')</script>", 800, 600)

    assert any("broken" in error for error in browser.errors())


def test_the_harness_sees_a_page_wider_than_the_screen(browser: DevTools) -> None:
    browser.open("data:text/html,<div style='width:900px'>wide</div>", 390, 844)

    assert browser.evaluate("document.documentElement.scrollWidth") > 390


def test_the_page_loads_cleanly_and_shows_the_numbers(browser: DevTools, page: Path) -> None:
    browser.open(page.as_uri(), 1280, 800)

    assert browser.errors() == []
    assert [url for url in browser.requests() if not url.startswith("file:")] == []
    text = browser.evaluate("document.body.innerText")
    shown = ["8 bugs (6 failing tests, 1 caretaker run finding, 1 runtime crash)", "$0.0180"]
    for said in (*shown, "9,800", "5 sessions", "openai/gpt-4o-mini", "9c8b7a6"):
        assert said in text
    assert "test_html[<script>alert(1)</script>]" in text  # shown as text, never run
    assert browser.evaluate("document.scripts.length") == 0


def test_the_charts_are_drawn(browser: DevTools, page: Path) -> None:
    browser.open(page.as_uri(), 1280, 800)

    charts = browser.evaluate(
        "[...document.querySelectorAll('svg.chart')].map(s => ({id: s.id, "
        "width: s.getBoundingClientRect().width, bars: s.querySelectorAll('rect').length}))"
    )
    assert [c["id"] for c in charts] == ["by-session", "by-repairer"]
    assert all(c["width"] > 300 and c["bars"] >= 3 for c in charts)


@pytest.mark.parametrize(("width", "height"), VIEWPORTS, ids=["laptop", "phone"])
def test_nothing_overflows_sideways(
    browser: DevTools, page: Path, width: int, height: int, tmp_path: Path
) -> None:
    browser.open(page.as_uri(), width, height)

    assert browser.evaluate("document.documentElement.scrollWidth") <= width
    shot = screenshot(browser)
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", shot[16:24]) == (width, height)
    (tmp_path / f"report-{width}x{height}.png").write_bytes(shot)
