"""The caretaker section at pytest's verbosity levels (#31): one line a test under -q, what the
search tried under -v, and the final stats line counting heals as rerunfailures counts reruns."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from pytest_caretaker.apply.rewrite import apply_edits
from pytest_caretaker.report import levels
from pytest_caretaker.report.summary import header, summary
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

CALC = b"def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
MEAN = Edit("replace", "calc.py", "mean", "def mean(xs):\n    return sum(xs) / len(xs)\n")
IMPORT = Edit("import", "calc.py", "import math", "import math")


def healed(nodeid: str, **more: Any) -> HealResult:
    applied = apply_edits("calc.py", CALC, (MEAN,))
    assert isinstance(applied, FileChange)
    candidate = Candidate((MEAN, IMPORT), (applied,), "mean divided by n + 1.", **more)
    return HealResult(nodeid, candidate, spend=Spend(candidates=7, seconds=0.5), repairer="builtin")


NOT_HEALED = HealResult("t.py::b", reason="the failure is in test code")


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_line(self, line: str, **markup: bool) -> None:
        self.lines.append(line)

    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None:
        self.lines.append(f"== {title} ==")


def test_quiet_is_one_line_a_test() -> None:
    writer = Lines()

    summary(writer, [NOT_HEALED, healed("t.py::a")], Path("p"), Path(), verbosity=-1)

    assert writer.lines == [
        "== caretaker ==",
        "HEALED t.py::a → calc.py::mean",
        "NOT HEALED t.py::b: the failure is in test code",
        "caretaker: 1 healed, 1 not healed · no tokens spent · fixes in p",
    ]


def test_quiet_keeps_what_was_written_and_a_judgement_call_on_a_test() -> None:
    result = healed("t.py::a", notices=("removes the assert on line 3 of t.py",))
    done = Written(Fix((result,)), "committed", "committed 3f2a9c1 fix: heal t.py::a")

    lines = levels.brief(result, done)

    assert [text for text, _ in lines] == [
        "HEALED t.py::a → calc.py::mean",
        "  ! the fix removes the assert on line 3 of t.py",
        "  committed 3f2a9c1 fix: heal t.py::a",
    ]


def test_a_remembered_fix_says_so_in_its_one_line() -> None:
    from dataclasses import replace

    ((text, _),) = levels.brief(replace(healed("t.py::a"), via="cache"))

    assert text == "HEALED t.py::a → calc.py::mean (from cache)"


def test_the_default_shows_the_diff_and_no_search() -> None:
    writer = Lines()

    summary(writer, [healed("t.py::a", tried=("`+` → `-` on line 2",))], None, Path())

    assert "  -    return sum(xs) / (len(xs) + 1)" in writer.lines
    assert not any(line.startswith("  tried") for line in writer.lines)
    assert not any(line.startswith("  transcript:") for line in writer.lines)


def test_verbose_adds_what_was_tried_the_runner_ups_and_the_transcript() -> None:
    result = healed(
        "t.py::a",
        tried=("`+ 1` → `- 1` on line 2", "`+ 1` → `+ 2` on line 2"),
        runner_ups=("`len(xs) + 1` → `len(xs)` on line 2 (calc.py)",),
    )
    writer = Lines()

    summary(writer, [result, NOT_HEALED], None, Path(), verbosity=1)

    start = writer.lines.index("  7 candidates tried · no model, no tokens · 0.5 s · builtin")
    assert writer.lines[start + 1 : start + 6] == [
        "  tried 6 candidates before it, the first:",
        "    `+ 1` → `- 1` on line 2",
        "    `+ 1` → `+ 2` on line 2",
        "  runner-ups, which pass a trial too:",
        "    `len(xs) + 1` → `len(xs)` on line 2 (calc.py)",
    ]
    transcript = "  transcript: .caretaker/transcripts/{}-*.md"
    assert fnmatch(writer.lines[start + 6], transcript.format("t.py_a"))
    assert writer.lines[start + 7] == "NOT HEALED t.py::b: the failure is in test code"
    assert fnmatch(writer.lines[start + 8], transcript.format("t.py_b"))


def test_verbose_lists_all_it_tried_when_it_tried_few() -> None:
    result = healed("t.py::a", tried=("one", "two"))
    result = HealResult(result.nodeid, result.candidate, spend=Spend(candidates=3))

    assert levels.details(result)[:3] == ["  tried 2 candidates before it:", "    one", "    two"]


def test_the_timings_line_names_each_stage() -> None:
    took = {"to rerun the failures": 0.42, "to repair": 3.0, "to write": 0.05}

    assert levels.timings(took) == (
        "caretaker: took 0.4 s to rerun the failures · 3.0 s to repair · 0.1 s to write"
    )


class Reporter:
    """pytest's terminal reporter as count sees it: its stats, by status."""

    def __init__(self, stats: dict[str, list[Any]]) -> None:
        self.stats = stats
        self.relearnt = 0

    def _set_main_color(self) -> None:
        self.relearnt += 1


class Report:
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


def test_the_final_line_counts_heals_by_the_tests_failing_reports() -> None:
    a, b, c = Report("t.py::a"), Report("t.py::b"), Report("t.py::c")
    reporter = Reporter({"failed": [a, c], "error": [b], "passed": [Report("t.py::d")]})

    levels.count(reporter, [healed("t.py::a"), NOT_HEALED, healed("t.py::c")])

    assert reporter.stats["healed"] == [a, c]
    assert reporter.stats["not healed"] == [b]
    assert reporter.relearnt == 1  # where the last test did not end the run (-x)


def test_nothing_not_healed_adds_no_status() -> None:
    reporter = Reporter({"failed": [Report("t.py::a")]})

    levels.count(reporter, [healed("t.py::a")])

    assert "not healed" not in reporter.stats


def test_the_header_is_one_short_line_unless_asked_why() -> None:
    settings = Settings(models=("builtin",), reason="no model configured; no provider key")

    assert header(settings, why=False) == "caretaker: heal (in memory) · model builtin · scope code"
    assert header(settings) == (
        "caretaker: heal (in memory) · model builtin (no model configured; no provider key) "
        "· scope code"
    )


# -- UNSURE (#45): a fix the tests cannot tell from another -----------------------------------

AGE = Doubt(
    "the tests cannot tell `<` from `<=` on line 2",
    call="age(date(1990, 6, 1), date(2024, 6, 1))",
    outcome="returns 34",
    other="returns 33",
    alternative=(
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def mean(xs):\n"
        "-    return sum(xs) / (len(xs) + 1)\n+    return sum(xs) / max(len(xs), 1)\n"
    ),
    test=(
        "def test_age_on_the_birthday():\n"
        "    assert age(date(1990, 6, 1), date(2024, 6, 1)) == ...\n"
    ),
)


class Marked(Lines):
    """A writer that keeps each line with its markup."""

    def __init__(self) -> None:
        super().__init__()
        self.markup: dict[str, dict[str, bool]] = {}

    def write_line(self, line: str, **markup: bool) -> None:
        super().write_line(line, **markup)
        self.markup[line] = markup


def test_an_unsure_fix_shows_its_diff_then_why_the_tests_cannot_tell() -> None:
    writer = Marked()

    summary(writer, [healed("t.py::a", doubt=AGE)], None, Path())

    at = writer.lines.index("UNSURE t.py::a")
    assert writer.markup["UNSURE t.py::a"] == {"yellow": True, "bold": True}
    assert not any(line.startswith("HEALED") for line in writer.lines)
    said = writer.lines.index("  mean divided by n + 1.")  # the explanation, after the diff
    assert at < writer.lines.index("  -    return sum(xs) / (len(xs) + 1)") < said
    assert writer.lines[said + 1 : said + 12] == [
        "  the tests cannot tell: `<` from `<=` on line 2",  # not said twice
        "  separating input: age(date(1990, 6, 1), date(2024, 6, 1)): this fix returns 34, "
        "the other returns 33",
        "  the other fix:",
        "    --- a/calc.py",
        "    +++ b/calc.py",
        "    @@ -1,2 +1,2 @@",
        "     def mean(xs):",
        "    -    return sum(xs) / (len(xs) + 1)",
        "    +    return sum(xs) / max(len(xs), 1)",
        "  a test to settle it (it expects this fix's result):",
        "    def test_age_on_the_birthday():",
    ]
    assert writer.markup["    +    return sum(xs) / max(len(xs), 1)"] == {"green": True}
    assert writer.markup["    -    return sum(xs) / (len(xs) + 1)"] == {"red": True}
    assert writer.lines[-1] == "caretaker: 0 healed, 1 unsure, 0 not healed · no tokens spent"


def test_a_lone_unsure_fix_is_compared_with_the_original() -> None:
    from dataclasses import replace

    lone = replace(AGE, alternative="", test="", outcome="returns None", other="raises KeyError")
    writer = Lines()

    summary(writer, [healed("t.py::a", doubt=lone)], None, Path())

    assert (
        "  separating input: age(date(1990, 6, 1), date(2024, 6, 1)): this fix returns None, "
        "the original raises KeyError"
    ) in writer.lines
    assert "  the tests cannot tell: `<` from `<=` on line 2" in writer.lines
    assert "  the other fix:" not in writer.lines
    assert not any(line.startswith("  a test to settle it") for line in writer.lines)


def test_quiet_says_why_an_unsure_fix_is_unsure_in_its_one_line() -> None:
    writer = Marked()

    summary(writer, [healed("t.py::a", doubt=AGE), healed("t.py::c")], None, Path(), verbosity=-1)

    line = "UNSURE t.py::a → calc.py::mean: the tests cannot tell `<` from `<=` on line 2"
    assert writer.lines == [
        "== caretaker ==",
        line,
        "HEALED t.py::c → calc.py::mean",
        "caretaker: 1 healed, 1 unsure, 0 not healed · no tokens spent",
    ]
    assert writer.markup[line] == {"yellow": True, "bold": True}


def test_the_final_line_counts_unsure_fixes_apart_and_only_when_there_are() -> None:
    a, b, c = Report("t.py::a"), Report("t.py::b"), Report("t.py::c")
    reporter = Reporter({"failed": [a, b, c]})

    levels.count(reporter, [healed("t.py::a", doubt=AGE), NOT_HEALED, healed("t.py::c")])

    assert reporter.stats["unsure"] == [a]
    assert reporter.stats["healed"] == [c]  # an UNSURE fix is no heal
    plain = Reporter({"failed": [c]})
    levels.count(plain, [healed("t.py::c")])
    assert "unsure" not in plain.stats


def test_a_reason_in_other_words_follows_the_tests_cannot_tell() -> None:
    from dataclasses import replace

    silencing = replace(AGE, reason="it deletes the raise on line 4 of calc.py", call="")
    writer = Lines()

    summary(writer, [healed("t.py::a", doubt=silencing)], None, Path())

    assert "  the tests cannot tell: it deletes the raise on line 4 of calc.py" in writer.lines
    assert not any(line.startswith("  separating input") for line in writer.lines)


def test_an_unsure_fix_healing_two_tests_tells_its_doubt_in_full_once() -> None:
    from dataclasses import replace

    first = healed("t.py::a", doubt=AGE)
    writer = Lines()

    summary(writer, [first, replace(first, nodeid="t.py::b", via="shared")], None, Path())

    assert writer.lines.count("  the tests cannot tell: `<` from `<=` on line 2") == 2
    assert writer.lines.count("  the other fix:") == 1
    at = writer.lines.index("UNSURE t.py::b")
    assert writer.lines[at + 2 : at + 4] == [
        "  the same fix as for t.py::a",
        "  the tests cannot tell: `<` from `<=` on line 2",
    ]
