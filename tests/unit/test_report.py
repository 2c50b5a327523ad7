"""The summary's figures and the combined patch of verified fixes."""

from __future__ import annotations

from pathlib import Path

from pytest_caretaker.apply.rewrite import apply_edits
from pytest_caretaker.report.summary import caps, closing_line, summary
from pytest_caretaker.results import Candidate, Edit, FileChange, HealResult, Spend
from pytest_caretaker.selection import compatible, group, patch
from pytest_caretaker.settings import Settings
from pytest_caretaker.text import plural

FIX = Candidate((), ())  # healed; what it changes does not matter here

CALC = b"def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n\n\ndef total(xs):\n    return 0\n"
MEAN = Edit("replace", "calc.py", "mean", "def mean(xs):\n    return sum(xs) / len(xs)\n")
OTHER_MEAN = Edit(
    "replace", "calc.py", "mean", "def mean(xs):\n    return sum(xs) / max(len(xs), 1)\n"
)
TOTAL = Edit("replace", "calc.py", "total", "def total(xs):\n    return sum(xs)\n")


def healed(nodeid: str, *edits: Edit) -> HealResult:
    """A healed result as the repairers make it: the edits and the file they give."""
    applied = apply_edits("calc.py", CALC, edits)
    assert isinstance(applied, FileChange)
    return HealResult(nodeid, Candidate(edits, (applied,)))


def combined_patch(results: list[HealResult]) -> tuple[bytes, list[str]]:
    """The patch file's content for these results, and the tests whose fixes are left out."""
    kept, dropped = compatible(group(results))
    return patch(kept), [nodeid for left in dropped for nodeid in left.fix.nodeids]


def test_one_fix_healing_several_tests_is_in_the_patch_once() -> None:
    patch, left_out = combined_patch([healed("t::a", MEAN), healed("t::b", MEAN)])

    assert left_out == []
    assert patch.count(b"+    return sum(xs) / len(xs)\n") == 1


def test_fixes_of_different_functions_combine() -> None:
    patch, left_out = combined_patch([healed("t::a", MEAN), healed("t::b", TOTAL)])

    assert left_out == []
    assert b"+    return sum(xs) / len(xs)\n" in patch and b"+    return sum(xs)\n" in patch


def test_different_fixes_of_one_function_conflict() -> None:
    results = [
        healed("t::b", OTHER_MEAN),
        healed("t::a", MEAN),
        HealResult("t::c", reason="no fix"),
    ]

    patch, left_out = combined_patch(results)

    assert left_out == ["t::b"]  # in test id order: t::a's fix came first
    assert b"len(xs))" not in patch and b"+    return sum(xs) / len(xs)\n" in patch


def test_two_fixes_of_one_function_on_different_lines_combine() -> None:
    # Two bugs in one function, each failing its own test, each healed by its own fix.
    source = b"def mean(xs):\n    n = len(xs) + 1\n    return sum(xs) * n\n"

    def fix(nodeid: str, after: bytes) -> HealResult:
        return HealResult(nodeid, Candidate((), (FileChange("calc.py", source, after),)))

    first = fix("t::a", source.replace(b" + 1", b""))
    second = fix("t::b", source.replace(b" * n", b" / n"))
    overlapping = fix("t::c", source.replace(b" + 1", b" - 1"))

    patch, left_out = combined_patch([first, second, overlapping])

    assert left_out == ["t::c"]  # it changes the line t::a's fix changed, differently
    assert b"+    n = len(xs)\n" in patch and b"+    return sum(xs) / n\n" in patch
    assert patch.count(b"\n@@ ") + patch.startswith(b"@@ ") == 1  # one hunk, both changes


def test_closing_line_counts_and_pluralises(tmp_path: Path) -> None:
    results = [
        HealResult(
            "a", FIX, spend=Spend(rounds=1, prompt_tokens=1000, completion_tokens=210, cost=0.0021)
        ),
        HealResult("b", reason="no", spend=Spend(rounds=3, prompt_tokens=3000, cost=0.001)),
    ]
    patch = tmp_path / ".caretaker" / "heal.patch"

    line = closing_line(results, patch, tmp_path)

    assert line == (
        "caretaker: 1 healed, 1 not healed · 4,210 tokens · $0.0031 · "
        "fixes in .caretaker/heal.patch"
    )
    assert (plural(1, "attempt"), plural(3, "attempt")) == ("1 attempt", "3 attempts")


def test_closing_line_without_any_model_call(tmp_path: Path) -> None:
    results = [
        HealResult("a", FIX, spend=Spend(candidates=3), repairer="builtin"),
        HealResult("b", reason="no", spend=Spend(candidates=9), repairer="builtin"),
    ]

    line = closing_line(results, None, tmp_path)

    assert line == "caretaker: 1 healed, 1 not healed · no tokens spent"


class Lines:
    """A terminal writer that keeps the lines (markup dropped)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_line(self, line: str, **markup: bool) -> None:
        self.lines.append(line)

    def write_sep(self, sep: str, title: str | None = None, **markup: bool) -> None:
        self.lines.append(f"=== {title}")


def test_one_fix_healing_several_tests_is_shown_once(tmp_path: Path) -> None:
    writer = Lines()
    results = [healed("t::a", MEAN), healed("t::b", MEAN), healed("t::c", TOTAL)]

    summary(writer, results, None, tmp_path)

    assert writer.lines.count("  +    return sum(xs) / len(xs)") == 1
    at = writer.lines.index("HEALED t::b")
    assert writer.lines[at + 1 : at + 3] == [
        "  patched calc.py::mean",
        "  the same fix as for t::a",
    ]
    assert "  +    return sum(xs)" in writer.lines  # t::c's own fix is shown in full


def test_a_problem_not_healed_shows_what_its_requests_came_to(tmp_path: Path) -> None:
    # One conversation per problem (#34): its lead counts the requests; the others say why.
    spend = Spend(rounds=3, prompt_tokens=300, completion_tokens=150, seconds=1.5)
    results = [
        HealResult("t::a", reason="t::a still fails", spend=spend, repairer="openai/m"),
        HealResult(
            "t::b", reason="t::a still fails (one root cause with t::a, repaired once for all)"
        ),
    ]
    writer = Lines()

    summary(writer, results, None, tmp_path)

    assert writer.lines[1:4] == [
        "NOT HEALED t::a: t::a still fails",
        "  3 attempts · 450 tokens · $0.0000 · 1.5 s · openai/m",
        "NOT HEALED t::b: t::a still fails (one root cause with t::a, repaired once for all)",
    ]


def test_the_header_states_the_caps_when_a_model_may_be_asked() -> None:
    assert caps(Settings(models=("builtin",))) is None
    assert caps(Settings(models=("openai/m",))) == (
        "caretaker: caps: 3 requests and 200,000 tokens a problem, 1,000,000 tokens a session"
    )
    capped = Settings(models=("builtin", "openai/m"), attempts=1, max_tokens=5_000, budget=0.5)
    assert caps(capped) == (
        "caretaker: caps: 1 request and 5,000 tokens a problem, 1,000,000 tokens a session, $0.50"
    )
    chain = Settings(models=("openai/a", "openai/b"))
    assert caps(chain) == (
        "caretaker: caps: 3 requests a model and 200,000 tokens a problem, 1,000,000 tokens a "
        "session"
    )
