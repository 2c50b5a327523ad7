"""Progress while healing: it counts problems and reaches its total; on a terminal the current
line is live (redrawn with its seconds), in a pipe or a CI log each step is a plain line."""

from __future__ import annotations

import io
import time

import pytest

from pytest_caretaker.report.progress import Live, Progress, Step, intro, is_terminal, line


class Tty(io.StringIO):
    """A terminal's stream, as far as the live line can tell."""

    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.newlines = 0

    def ensure_newline(self) -> None:
        self.newlines += 1

    def write_line(self, line: str, **markup: bool) -> None:
        self.lines.append(line)


@pytest.mark.parametrize(
    ("step", "said"),
    [
        (Step(1, 1, 1, "t.py::a"), "healing 1/1 t.py::a …"),
        (Step(2, 3, 4, "t.py::b", cases=2), "healing 2/3 t.py::b (2 failures) …"),
    ],
)
def test_a_step_says_which_problem_of_how_many(step: Step, said: str) -> None:
    assert line(step) == said


def test_fewer_problems_than_failures_are_said_once_first() -> None:
    assert intro(Step(1, 3, 4, "t.py::a", cases=2)) == (
        "caretaker: 4 failures in 3 problems; each problem is repaired once for all its failures"
    )
    assert intro(Step(2, 3, 4, "t.py::b")) is None
    assert intro(Step(1, 2, 2, "t.py::a")) is None  # one problem a failure: nothing to explain


def test_in_a_pipe_each_step_is_a_line_of_its_own() -> None:
    lines = Lines()
    progress = Progress(lines)

    progress(Step(1, 2, 3, "t.py::a", cases=2))
    progress(Step(2, 2, 3, "t.py::c"))
    progress.close()

    assert lines.lines == [
        "caretaker: 3 failures in 2 problems; each problem is repaired once for all its failures",
        "healing 1/2 t.py::a (2 failures) …",
        "healing 2/2 t.py::c …",
    ]
    assert lines.newlines == 1  # once, before the first: the test progress line ends


def test_on_a_terminal_the_line_shows_its_seconds_and_the_next_step_keeps_it() -> None:
    screen, clock = Tty(), Clock()
    live = Live(screen, every=3600.0, clock=clock)  # no redraw by the thread: ticks by hand

    live.show("healing 1/2 t.py::a …")
    clock.now += 3.2
    live.tick()
    clock.now += 10.0
    live.tick()
    live.show("healing 2/2 t.py::b …")
    clock.now += 1.0
    live.tick()
    live.close()

    assert screen.getvalue() == (
        "\rhealing 1/2 t.py::a …"
        "\rhealing 1/2 t.py::a … 3 s"
        "\rhealing 1/2 t.py::a … 13 s"
        "\n\rhealing 2/2 t.py::b …"
        "\rhealing 2/2 t.py::b … 1 s"
        "\n"
    )


def test_a_shorter_redraw_blanks_what_the_longer_one_left() -> None:
    screen, clock = Tty(), Clock()
    live = Live(screen, every=3600.0, clock=clock)
    live.show("step")
    clock.now += 12.0
    live.tick()  # "step 12 s"
    live._since = clock.now - 5.0  # as if drawn from a later start: "step 5 s", one shorter
    live.tick()
    live.close()

    assert screen.getvalue().split("\r")[-1] == "step 5 s \n"


def test_the_live_line_moves_by_itself_and_stops_when_closed() -> None:
    screen = Tty()
    live = Live(screen, every=0.01)
    live.show("healing 1/1 t.py::a …")
    deadline = time.monotonic() + 10.0
    while screen.getvalue().count("\r") < 3 and time.monotonic() < deadline:
        time.sleep(0.01)

    live.close()
    drawn = screen.getvalue()
    time.sleep(0.05)

    assert drawn.count("\r") >= 3
    assert screen.getvalue() == drawn  # nothing drawn after close
    assert drawn.endswith("\n")


class Terminal:
    def __init__(self, tty: bool | None, method: bool = True) -> None:
        self.isatty = (lambda: tty) if method else tty


@pytest.mark.parametrize(
    ("terminal", "env", "live"),
    [
        (Terminal(True), {}, True),
        (Terminal(True, method=False), {}, True),  # pytest 8.0: a bool, not a method
        (Terminal(False), {}, False),  # a pipe, a file
        (Terminal(True), {"CI": "true"}, False),  # a CI log, even on a pseudo-terminal
        (Terminal(True), {"GITHUB_ACTIONS": "true"}, False),
        (Terminal(True), {"TERM": "dumb"}, False),
    ],
    ids=["tty", "tty-pytest-8.0", "pipe", "ci", "github-actions", "dumb-terminal"],
)
def test_the_line_is_live_on_a_terminal_only(
    terminal: Terminal, env: dict[str, str], live: bool
) -> None:
    assert is_terminal(terminal, env) is live


def test_under_q_nothing_is_said() -> None:
    progress = Progress.on(object(), quiet=True, env={})

    progress(Step(1, 1, 1, "t.py::a"))  # no terminal to write to: it would raise
    progress.close()

    assert progress.lines is None and progress.live is None
