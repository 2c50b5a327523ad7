"""Review mode's questions (plugin/review.py) for UNSURE fixes (#45): each is shown with why the
tests cannot tell, and is written when the answer takes it. (The terminal itself is tested in
e2e/test_review_e2e.py.)"""

from __future__ import annotations

import io
from typing import Any, cast

import pytest

from pytest_caretaker.plugin.review import Review
from pytest_caretaker.results import Candidate, Doubt, Edit, FileChange, Fix, HealResult

DOUBT = Doubt(
    "the tests cannot tell `<` from `<=` on line 2",
    call="age(date(1990, 6, 1), date(2024, 6, 1))",
    outcome="returns 34",
    other="returns 33",
    test="def test_age():\n    assert age(date(1990, 6, 1), date(2024, 6, 1)) == ...\n",
)


class Terminal:
    """pytest's terminal reporter as review writes to it: the text, markup dropped."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str, **markup: bool) -> None:
        self.text += text

    def write_line(self, line: str, **markup: bool) -> None:
        self.text += line + "\n"

    def write_sep(self, sep: str, title: str = "", **markup: bool) -> None:
        self.text += f"-- {title} --\n"

    def ensure_newline(self) -> None:
        pass


class Plugins:
    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal

    def get_plugin(self, name: str) -> object:
        return self.terminal if name == "terminalreporter" else None


class Config:
    def __init__(self, terminal: Terminal) -> None:
        self.pluginmanager = Plugins(terminal)


def fix(nodeid: str, doubt: Doubt | None = None) -> Fix:
    change = FileChange("age.py", b"x = 1\n", b"x = 2\n")
    edit = Edit("replace", "age.py", "age", "def age(): ...\n")
    return Fix((HealResult(nodeid, Candidate((edit,), (change,), "", doubt=doubt)),))


def answered(
    monkeypatch: pytest.MonkeyPatch, fixes: list[Fix], answers: str
) -> tuple[list[bool], str]:
    terminal = Terminal()
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    review = Review(cast(Any, Config(terminal)), fixes)
    return [review(one, one.changes) for one in fixes], terminal.text


def test_an_unsure_fix_is_shown_with_its_doubt(monkeypatch: pytest.MonkeyPatch) -> None:
    doubted = fix("t.py::test_age", DOUBT)

    taken, shown = answered(monkeypatch, [doubted], "y\n")

    assert taken == [True]
    assert "-- caretaker: fix 1 of 1 (UNSURE) --\n" in shown
    assert (
        "the tests cannot tell: `<` from `<=` on line 2\n"
        "separating input: age(date(1990, 6, 1), date(2024, 6, 1)): this fix returns 34, "
        "the original returns 33\n"
        "a test to settle it (it expects this fix's result):\n"
        "  def test_age():\n"
    ) in shown
    assert shown.endswith("Write fix 1 of 1? y / n / a(ll) / q(uit) [n] ")


def test_no_takes_no_unsure_fix_and_the_next_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    fixes = [fix("t.py::test_age", DOUBT), fix("t.py::test_c")]

    taken, shown = answered(monkeypatch, fixes, "n\ny\n")

    assert taken == [False, True] and shown.count("q(uit) [n] ") == 2
    assert "-- caretaker: fix 2 of 2 --\n" in shown  # the plain one says nothing of doubt


def test_a_plain_fix_is_asked_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    _, shown = answered(monkeypatch, [fix("t.py::test_a")], "n\n")

    assert "-- caretaker: fix 1 of 1 --\n" in shown and "UNSURE" not in shown
    assert shown.endswith("Write fix 1 of 1? y / n / a(ll) / q(uit) [n] ")
